import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStreamVolume, parseVolumeCommand } from './audio.js';
import {
  parseCurrentInputMethod,
  parseForegroundApp,
  parseGetprop,
  parseKeyboardShown,
  parseLocked,
  parseScreenOn,
  parseSecureWindow,
  parseWmDensity,
  parseWmSize,
} from './device-state.js';
import { parseLocations } from './location.js';
import { isAtLeastLevel, parseThreadtime } from './logcat.js';
import { canTakeMediaCommands, parseMediaSessions } from './media-session.js';
import { parseNotifications } from './notifications.js';
import { parsePackageDetails, parsePackageList } from './packages.js';

function fixture(name: string): string {
  return readFileSync(join(import.meta.dirname, '../../test/fixtures', name), 'utf8');
}

describe('device state parsers', () => {
  it('reads focus, lock and the secure flag from an Android 9 dumpsys window', () => {
    const output = fixture('dumpsys-window-android9.txt');
    expect(parseForegroundApp(output)).toEqual({
      packageName: 'com.example.wallet',
      activity: 'com.example.wallet.PinActivity',
    });
    expect(parseLocked(output)).toBe(true);
    expect(parseSecureWindow(output)).toBe(true);
  });

  it('reads focus, lock and the secure flag from an Android 13 dumpsys window', () => {
    const output = fixture('dumpsys-window-android13.txt');
    expect(parseForegroundApp(output)).toEqual({
      packageName: 'com.android.settings',
      activity: 'com.android.settings.Settings',
    });
    expect(parseLocked(output)).toBe(false);
    expect(parseSecureWindow(output)).toBe(false);
  });

  it('reads the flags of the focused window from its window block, not the policy lines naming it first (Android 14)', () => {
    const output = fixture('dumpsys-window-android14.txt');
    expect(parseForegroundApp(output)).toEqual({
      packageName: 'com.example.wallet',
      activity: 'com.example.wallet.PinActivity',
    });
    expect(parseLocked(output)).toBe(false);
    expect(parseSecureWindow(output)).toBe(true);
  });

  it('falls back to mFocusedApp when the keyguard has focus, in both Android 9 forms', () => {
    const output = fixture('dumpsys-window-android9-keyguard.txt');
    const vending = {
      packageName: 'com.android.vending',
      activity: 'com.google.android.finsky.activities.MainActivity',
    };
    expect(parseForegroundApp(output)).toEqual(vending);
    // `dumpsys window displays` alone: only the AppWindowToken{… token=Token{…}} form.
    const displays = output.slice(output.indexOf('WINDOW MANAGER DISPLAY CONTENTS'));
    expect(displays).not.toContain('mFocusedApp=Token{');
    expect(parseForegroundApp(displays)).toEqual(vending);
    expect(parseLocked(output)).toBe(true);
    expect(parseSecureWindow(output)).toBe(false);
  });

  it("takes the default display's focused app over another display's focused window (Android 13, cover display)", () => {
    const output = fixture('dumpsys-window-android13-two-displays.txt');
    expect(parseForegroundApp(output)).toEqual({
      packageName: 'com.google.android.apps.maps',
      activity: 'com.google.android.maps.MapsActivity',
    });
    expect(parseSecureWindow(output)).toBe(false);
  });

  it("takes the default display's focused window when it has one, whatever the display order", () => {
    const output = fixture('dumpsys-window-android13-two-displays.txt').replace(
      '  mCurrentFocus=null',
      '  mCurrentFocus=Window{2785a60 u0 com.google.android.apps.maps/com.google.android.apps.gmm.LockscreenActivity}',
    );
    expect(parseForegroundApp(output)).toEqual({
      packageName: 'com.google.android.apps.maps',
      activity: 'com.google.android.apps.gmm.LockscreenActivity',
    });
  });

  it('reads the other display when the default display has neither focus nor focused app', () => {
    const output = fixture('dumpsys-window-android13-two-displays.txt').replace(
      / {2}mFocusedApp=ActivityRecord\{d72327 [^\n]*/,
      '  mFocusedApp=null',
    );
    expect(parseForegroundApp(output)).toEqual({
      packageName: 'com.android.systemui',
      activity: 'com.android.systemui.subscreen.SubHomeActivity',
    });
  });

  it('falls back to the resumed activity record of dumpsys activity (Android 12)', () => {
    expect(parseForegroundApp(fixture('dumpsys-activity-android12.txt'))).toEqual({
      packageName: 'com.whatsapp',
      activity: 'com.whatsapp.HomeActivity',
    });
  });

  it('says unknown when nothing is printed', () => {
    expect(parseForegroundApp('')).toBeUndefined();
    expect(parseLocked('')).toBeUndefined();
    expect(parseSecureWindow('')).toBeUndefined();
    expect(parseScreenOn('')).toBeUndefined();
    expect(parseKeyboardShown('')).toBeUndefined();
  });

  it('reads the screen state from dumpsys power', () => {
    expect(parseScreenOn(fixture('dumpsys-power-android11.txt'))).toBe(false);
    expect(parseScreenOn('Display Power: state=ON\n')).toBe(true);
  });

  it('reads keyboard visibility and the current IME from dumpsys input_method', () => {
    const output = fixture('dumpsys-input-method-android10.txt');
    expect(parseKeyboardShown(output)).toBe(true);
    expect(parseCurrentInputMethod(output)).toBe(
      'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME',
    );
    expect(parseKeyboardShown('  mImeWindowVis=0\n')).toBe(false);
  });

  it('reads getprop and wm output, preferring overrides', () => {
    expect(
      parseGetprop('[ro.product.model]: [Pixel 7]\n[ro.build.version.sdk]: [34]\n[empty]: []\n'),
    ).toEqual(
      new Map([
        ['ro.product.model', 'Pixel 7'],
        ['ro.build.version.sdk', '34'],
        ['empty', ''],
      ]),
    );
    expect(parseWmSize('Physical size: 1440x3120\nOverride size: 1080x2340\n')).toEqual({
      width: 1080,
      height: 2340,
    });
    expect(parseWmDensity('Physical density: 560\n')).toBe(560);
    expect(parseWmSize('garbage')).toBeUndefined();
  });
});

describe('package parsers', () => {
  it('reads pm list packages with and without -f', () => {
    expect(
      parsePackageList(
        'package:com.android.settings\npackage:/data/app/~~a==/com.x.y-b==/base.apk=com.x.y\r\n\n',
      ),
    ).toEqual([
      { packageName: 'com.android.settings' },
      { packageName: 'com.x.y', apkPath: '/data/app/~~a==/com.x.y-b==/base.apk' },
    ]);
  });

  it('reads version, times and permission grants from an Android 13 dumpsys package', () => {
    expect(
      parsePackageDetails(fixture('dumpsys-package-android13.txt'), 'com.example.chat'),
    ).toEqual({
      packageName: 'com.example.chat',
      versionName: '4.1.13',
      versionCode: 2040113,
      minSdk: 26,
      targetSdk: 33,
      firstInstallTime: '2023-11-02 19:04:11',
      lastUpdateTime: '2024-05-14 08:21:52',
      installer: 'com.android.vending',
      system: false,
      requestedPermissions: [
        'android.permission.INTERNET',
        'android.permission.ACCESS_NETWORK_STATE',
        'android.permission.CAMERA',
        'android.permission.RECORD_AUDIO',
        'android.permission.POST_NOTIFICATIONS',
        'android.permission.READ_CONTACTS',
      ],
      grantedPermissions: [
        'android.permission.INTERNET',
        'android.permission.ACCESS_NETWORK_STATE',
        'android.permission.POST_NOTIFICATIONS',
        'android.permission.RECORD_AUDIO',
      ],
      deniedPermissions: ['android.permission.CAMERA', 'android.permission.READ_CONTACTS'],
    });
  });

  it('reads runtime grants of a sharedUserId package from the Shared users section (Android 10)', () => {
    const output = fixture('dumpsys-package-android10-shared-user.txt');
    expect(parsePackageDetails(output, 'com.android.phone')).toMatchObject({
      system: true,
      grantedPermissions: [
        'android.permission.INTERNET',
        'android.permission.MODIFY_PHONE_STATE',
        'android.permission.READ_PHONE_STATE',
        'android.permission.CALL_PHONE',
        'android.permission.READ_CONTACTS',
      ],
      deniedPermissions: ['android.permission.ACCESS_FINE_LOCATION'],
    });
  });

  it('reads no shared-user grants for a package whose sharedUser names another shared user', () => {
    const output = fixture('dumpsys-package-android10-shared-user.txt').replace(
      'sharedUser=SharedUser{4f5a6b7 android.uid.phone/1001}',
      'sharedUser=SharedUser{4f5a6b7 android.uid.system/1000}',
    );
    expect(parsePackageDetails(output, 'com.android.phone')).toMatchObject({
      grantedPermissions: ['android.permission.INTERNET', 'android.permission.MODIFY_PHONE_STATE'],
      deniedPermissions: [],
    });
  });

  it('returns undefined for a package that is not installed', () => {
    expect(parsePackageDetails('Unable to find package: com.nope\n', 'com.nope')).toBeUndefined();
    expect(
      parsePackageDetails(fixture('dumpsys-package-android13.txt'), 'com.example'),
    ).toBeUndefined();
  });
});

describe('logcat, notification, location and media parsers', () => {
  it('parses threadtime lines, skipping banners, including an empty tag', () => {
    const entries = parseThreadtime(fixture('logcat-threadtime.txt'));
    expect(entries).toHaveLength(6);
    expect(entries[2]).toEqual({
      time: '03-17 16:13:41.990',
      pid: 6134,
      tid: 6170,
      level: 'E',
      tag: 'AndroidRuntime',
      message: 'FATAL EXCEPTION: DefaultDispatcher-worker-2',
    });
    expect(entries[4]?.message).toBe('  Force finishing activity com.example.chat/.MainActivity');
    expect(entries[5]).toMatchObject({ tag: '', message: 'empty tag line' });
    expect(isAtLeastLevel('W', 'I')).toBe(true);
    expect(isAtLeastLevel('D', 'W')).toBe(false);
  });

  it('parses notifications with String and SpannableString extras, preferring bigText', () => {
    expect(parseNotifications(fixture('dumpsys-notification-android11.txt'))).toEqual([
      {
        packageName: 'com.google.android.gm',
        id: -1421,
        key: '0|com.google.android.gm|-1421|null|10152',
        title: 'Dana Whitfield',
        text: "Quarterly numbers attached — please review before Friday's meeting.",
        postTime: 1710689627000,
      },
      {
        packageName: 'com.android.systemui',
        id: 7,
        key: '0|com.android.systemui|7|null|10042',
        title: 'USB debugging connected',
        text: 'Tap to turn off USB debugging',
        postTime: 1710686001000,
      },
    ]);
  });

  it('drops redacted notification texts', () => {
    const redacted = fixture('dumpsys-notification-android11.txt').replace(
      'String (USB debugging connected)',
      'String ([23])',
    );
    expect(parseNotifications(redacted)[1]?.title).toBeUndefined();
  });

  it('parses last known locations of Android 9 (acc=) and Android 12 (hAcc=)', () => {
    expect(
      parseLocations(fixture('dumpsys-location-android9.txt')).find(
        (location) => location.provider === 'gps',
      ),
    ).toEqual({
      provider: 'gps',
      latitude: 48.858412,
      longitude: 2.294503,
      accuracyMeters: 4,
      altitude: 91,
    });
    expect(parseLocations(fixture('dumpsys-location-android12.txt'))[0]).toEqual({
      provider: 'fused',
      latitude: 35.658581,
      longitude: 139.745433,
      accuracyMeters: 12.5,
      altitude: 44.2,
    });
  });

  it('reads coordinates printed with decimal commas by a device in a German or French locale', () => {
    const locations = parseLocations(fixture('dumpsys-location-android9-comma-locale.txt'));
    expect(locations).toHaveLength(3);
    expect(locations[2]).toEqual({
      provider: 'gps',
      latitude: -33.856784,
      longitude: 151.215297,
      accuracyMeters: 5,
      altitude: 58.5,
    });
    expect(locations[0]).toMatchObject({
      provider: 'network',
      latitude: 52.520008,
      longitude: 13.404954,
    });
  });

  it('leaves out records whose coordinates cannot be read', () => {
    expect(
      parseLocations('last location=Location[fused XX.YYY hAcc=5.039 et=+16d19h48m34s252ms]'),
    ).toEqual([]);
    expect(parseLocations('Location[gps 123.000000,200.000000 acc=3]')).toEqual([]);
  });

  it('parses media sessions with state and description', () => {
    expect(parseMediaSessions(fixture('dumpsys-media-session-android11.txt'))).toEqual([
      {
        packageName: 'com.spotify.music',
        state: 'playing',
        stateCode: 3,
        description: 'Bohemian Rhapsody, Queen, A Night at the Opera',
        active: true,
      },
      { packageName: 'com.google.android.youtube', state: 'paused', stateCode: 2, active: false },
    ]);
  });

  it('counts only active sessions or sessions with a playback state as taking media commands', () => {
    expect(
      parseMediaSessions(fixture('dumpsys-media-session-android11.txt')).map(canTakeMediaCommands),
    ).toEqual([true, true]);
    const telecom = { packageName: 'com.android.server.telecom', state: 'none', stateCode: 0 };
    expect(canTakeMediaCommands({ ...telecom, active: false })).toBe(false);
    expect(canTakeMediaCommands({ ...telecom, active: true })).toBe(true);
  });

  it('reads the volume line of cmd media_session volume (Android 11+) and media volume (Android 10)', () => {
    expect(
      parseVolumeCommand(
        '[V] will control stream=3 (STREAM_MUSIC)\n[V] will get volume\n[V] Connecting to AudioService\n[V] volume is 7 in range [0..25]\n',
      ),
    ).toEqual({ volume: 7, min: 0, max: 25 });
    expect(
      parseVolumeCommand(
        '[v] will get volume\r\n[v] Connecting to AudioService\r\n[v] volume is 0 in range [0..15]\r\n',
      ),
    ).toEqual({ volume: 0, min: 0, max: 15 });
    expect(parseVolumeCommand('No shell command implementation.\n')).toBeUndefined();
    expect(
      parseVolumeCommand('/system/bin/sh: media: inaccessible or not found\n'),
    ).toBeUndefined();
  });

  it('reads the music volume from streamVolume, not from a stream aliased to it (Android 14)', () => {
    const output = fixture('dumpsys-audio-android14.txt');
    expect(parseStreamVolume(output)).toEqual({
      volume: 13,
      min: 0,
      max: 25,
      muted: false,
      device: 'speaker',
    });
    expect(parseStreamVolume(output, 'STREAM_VOICE_CALL')).toMatchObject({
      volume: 5,
      device: 'earpiece',
    });
    expect(parseStreamVolume(output, 'STREAM_ALARM')).toBeUndefined();
    expect(parseStreamVolume('')).toBeUndefined();
  });
});

describe('parseThreadtime on hostile lines', () => {
  it('parses a line of any length in linear time', () => {
    const spaces = `01-01 00:00:00.000  1  1 I ${' '.repeat(200_000)}x`;
    const started = performance.now();
    expect(
      parseThreadtime(`${spaces}\n01-01 00:00:00.000  1  1 I Tag: ${'a'.repeat(200_000)}`),
    ).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
