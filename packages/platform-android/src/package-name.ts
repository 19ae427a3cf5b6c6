/** The npm name of this package: the owner its tools are registered under. */
export const ANDROID_PACKAGE_NAME = '@toolsys/platform-android';
