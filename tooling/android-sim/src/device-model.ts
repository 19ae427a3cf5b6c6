/** One node of a simulated screen, as `uiautomator dump` prints it. */
export interface SimNode {
  /** Widget class, e.g. `android.widget.Button`. */
  readonly className: string;
  /** Visible text (an EditText's content changes with input). */
  text?: string;
  /** `resource-id`, e.g. `com.example:id/send`. */
  readonly resourceId?: string;
  /** `content-desc`. */
  readonly contentDesc?: string;
  /** [left, top, right, bottom] in screen pixels. */
  readonly bounds: readonly [number, number, number, number];
  readonly clickable?: boolean;
  readonly focusable?: boolean;
  focused?: boolean;
  readonly scrollable?: boolean;
  readonly checkable?: boolean;
  checked?: boolean;
  readonly password?: boolean;
  readonly longClickable?: boolean;
  /** Tapping the node opens this screen id. */
  readonly goTo?: string;
  /** Tapping the node toggles `checked` (switches, checkboxes). */
  readonly toggles?: boolean;
  /** For a scrollable node: pages of children; a swipe up shows the next page. */
  readonly pages?: readonly (readonly SimNode[])[];
  readonly children?: SimNode[];
}

/** One screen: a window of an app with its view hierarchy. */
export interface SimScreen {
  /** Unique id among the device's screens. */
  readonly id: string;
  /** The app the screen belongs to. */
  readonly packageName: string;
  /** Fully-qualified activity class name. */
  readonly activity: string;
  /** The window is FLAG_SECURE (screenshots come out black). */
  readonly secure?: boolean;
  /** The root of the hierarchy (usually a FrameLayout covering the screen). */
  readonly root: SimNode;
}

/** An installed package. */
export interface SimApp {
  readonly packageName: string;
  readonly versionName: string;
  readonly versionCode: number;
  /** A system package (`pm list packages -s`). */
  readonly system: boolean;
  /** The id of the screen the launcher activity shows, if it has one. */
  readonly launchScreen?: string;
  /** Requested permissions. */
  readonly permissions: readonly string[];
  /** Install time, ms since the epoch. */
  readonly firstInstallTime: number;
  readonly lastUpdateTime: number;
  readonly targetSdk?: number;
  readonly minSdk?: number;
  /** The instrumentation a test APK declares (`pm list instrumentation`, `am instrument`). */
  readonly instrumentation?: { readonly name: string; readonly targetPackage: string };
}

/** One logcat entry. */
export interface SimLogEntry {
  /** ms since the epoch. */
  readonly time: number;
  readonly pid: number;
  readonly tid: number;
  /** V D I W E F. */
  readonly level: 'V' | 'D' | 'I' | 'W' | 'E' | 'F';
  readonly tag: string;
  readonly message: string;
}

/** A posted notification. */
export interface SimNotification {
  readonly packageName: string;
  readonly id: number;
  readonly title: string;
  readonly text: string;
  /** When posted, ms since the epoch. */
  readonly postTime: number;
  readonly channel?: string;
}

/** A media session. */
export interface SimMediaSession {
  readonly packageName: string;
  /** PlaybackState code: 1 stopped, 2 paused, 3 playing; 0 prints as no PlaybackState (`state=null`). */
  state: number;
  /** Whether the session is active (`active=`); default true. Telecom's call session is not. */
  active?: boolean;
  /** The track list; `track` indexes it. */
  readonly tracks: readonly { title: string; artist: string; album: string }[];
  track: number;
}

/** The full scripted state of a simulated device. Every field may be changed by a test. */
export interface SimDeviceState {
  /** `getprop` values (ro.product.model, ro.build.version.release …). */
  readonly properties: Record<string, string>;
  /** Physical display size in pixels. */
  readonly display: { width: number; height: number; density: number };
  readonly apps: Map<string, SimApp>;
  readonly screens: Map<string, SimScreen>;
  /** The screen shown (ids into `screens`). */
  screenId: string;
  /** Screens below the current one (BACK pops). */
  readonly backStack: string[];
  /** Running processes by package. */
  readonly processes: Map<string, number>;
  screenOn: boolean;
  locked: boolean;
  /** Whether the lock has a credential (then `input keyevent 82` does not unlock). */
  lockHasCredential: boolean;
  /** `settings` by namespace. */
  readonly settings: {
    system: Map<string, string>;
    secure: Map<string, string>;
    global: Map<string, string>;
  };
  clipboard: string;
  readonly log: SimLogEntry[];
  readonly notifications: SimNotification[];
  location?: {
    provider: string;
    latitude: number;
    longitude: number;
    accuracy: number;
    time: number;
    altitude?: number;
  };
  readonly mediaSessions: SimMediaSession[];
  /** Media volume (STREAM_MUSIC), 0..15. */
  volume: number;
  /** The device's clock, ms since the epoch (advanced by each command). */
  now: number;
  /** Files reachable over `sync:` and `cat`, by absolute path. */
  readonly files: Map<string, { data: Buffer; mode: number; mtime: number }>;
  /** When set, `uiautomator dump` fails with this line (e.g. `ERROR: could not get idle state.`). */
  uiautomatorError?: string;
  /**
   * When set, `uiautomator dump` writes these bytes instead of the current screen's hierarchy: a
   * hostile or broken device (a huge dump, malformed XML, forged text).
   */
  uiautomatorXml?: string | Buffer;
  /** Next pid handed to a started process. */
  nextPid: number;
}
