import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStreamVolume } from '../src/parsers/audio.js';
import {
  parseForegroundApp,
  parseGetprop,
  parseLocked,
  parseScreenOn,
} from '../src/parsers/device-state.js';
import { parseThreadtime } from '../src/parsers/logcat.js';
import { canTakeMediaCommands, parseMediaSessions } from '../src/parsers/media-session.js';
import { parseNotifications } from '../src/parsers/notifications.js';
import { parsePackageDetails, parsePackageList } from '../src/parsers/packages.js';

// Outputs captured on real devices and published elsewhere; fixtures/README.md names each source.
function capture(name: string): string {
  return readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
}

describe('dumpsys media_session captured on devices', () => {
  it('reads the named playback state Android 13 and later print (PLAYING(3))', () => {
    expect(parseMediaSessions(capture('real-dumpsys-media-session-androidtv-playing.txt'))).toEqual(
      [
        {
          packageName: 'com.teamsmart.videomanager.tv',
          state: 'playing',
          stateCode: 3,
          active: true,
        },
      ],
    );
  });

  it('reads a session with state=null and metadata: null as none (Android 14 phone)', () => {
    expect(parseMediaSessions(capture('real-dumpsys-media-session-android14-phone.txt'))).toEqual([
      { packageName: 'com.android.server.telecom', state: 'none', stateCode: 0, active: false },
    ]);
  });

  it("does not count telecom's inactive session as one that takes media commands (Android 14 phone)", () => {
    const sessions = parseMediaSessions(capture('real-dumpsys-media-session-android14-phone.txt'));
    expect(sessions.filter(canTakeMediaCommands)).toEqual([]);
    const playing = parseMediaSessions(capture('real-dumpsys-media-session-androidtv-playing.txt'));
    expect(playing.filter(canTakeMediaCommands).map((session) => session.packageName)).toEqual([
      'com.teamsmart.videomanager.tv',
    ]);
  });
});

describe('logcat -v threadtime captured on devices', () => {
  it('trims the padded tag and skips the buffer banner (Android 16, Pixel 7 Pro)', () => {
    expect(parseThreadtime(capture('real-logcat-threadtime-android16-pixel.txt'))).toEqual([
      {
        time: '07-09 16:21:13.779',
        pid: 7643,
        tid: 7643,
        level: 'W',
        tag: 'HWUI',
        message: 'Image decoding logging dropped!',
      },
    ]);
  });

  it('splits at the first ": " when the message holds " : " (EMUI 12)', () => {
    const entries = parseThreadtime(capture('real-logcat-threadtime-emui12.txt'));
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      pid: 6361,
      level: 'E',
      tag: 'mpanion.androi',
      message: 'LoadAppImageStartupCache enabled : 1',
    });
  });

  it('reads five-digit pids and messages with colons (Samsung)', () => {
    const entries = parseThreadtime(capture('real-logcat-threadtime-samsung.txt'));
    expect(entries).toHaveLength(7);
    expect(entries[0]).toEqual({
      time: '12-01 17:33:00.029',
      pid: 15043,
      tid: 15178,
      level: 'I',
      tag: 'SensorReceiver',
      message: 'Skipping faster update because not charging/different preference',
    });
    expect(entries[2]).toMatchObject({
      tag: 'IntegrationRepository',
      message: 'setSessionExpireMillis(): 1669915986432',
    });
    expect(entries[6]?.message).toMatch(/^ensureControlPosition: Point\(0, 2256\) for /);
  });

  it('keeps long system_server lines whole', () => {
    const entries = parseThreadtime(capture('real-logcat-threadtime-media-session.txt'));
    expect(entries.map((entry) => [entry.pid, entry.tid, entry.level, entry.tag])).toEqual([
      [1775, 2736, 'D', 'MediaSessionService'],
      [1775, 2837, 'D', 'MediaSessionService'],
      [1775, 2736, 'I', 'MediaFocusControl'],
    ]);
    expect(entries[0]?.message).toMatch(/^onSessionPlaybackStateChanged: .* error=null}$/);
    expect(entries[2]?.message).toBe('abandonAudioFocus() from uid/pid 10514/15491');
  });
});

describe('dumpsys power captured on devices', () => {
  it('reads mWakefulness=Awake from a Samsung dump', () => {
    expect(parseScreenOn(capture('real-dumpsys-power-samsung.txt'))).toBe(true);
  });

  it('reads mScreenOn= from the Display Power State block of Android 4.4', () => {
    expect(parseScreenOn(capture('real-dumpsys-power-android4.txt'))).toBe(true);
  });
});

describe('dumpsys window captured on devices', () => {
  it('reads the keyguard from KeyguardServiceDelegate with the screen on and off', () => {
    expect(parseLocked(capture('real-dumpsys-window-keyguard-screen-on.txt'))).toBe(false);
    expect(parseLocked(capture('real-dumpsys-window-keyguard-screen-off.txt'))).toBe(false);
  });

  it('reads mShowingLockscreen= of the Android 7 policy line', () => {
    expect(parseLocked(capture('real-dumpsys-window-policy-android7-locked.txt'))).toBe(true);
  });

  it('reads the focus line of Android 4.1, which has no user id and ends in paused=false', () => {
    expect(parseForegroundApp(capture('real-dumpsys-window-focus-android4.txt'))).toEqual({
      packageName: 'com.android.settings',
      activity: 'com.android.settings.SubSettings',
    });
  });

  it('takes the focused window of the display that has one (Samsung cover display)', () => {
    expect(
      parseForegroundApp(capture('real-dumpsys-window-focus-samsung-cover-display.txt')),
    ).toEqual({
      packageName: 'eu.niko.smart.universal',
      activity: 'crc648a3abc16689e594e.MainActivity',
    });
  });

  it('skips displays whose mCurrentFocus is null (Samsung, three displays)', () => {
    expect(
      parseForegroundApp(capture('real-dumpsys-window-focus-samsung-three-displays.txt')),
    ).toEqual({
      packageName: 'com.example.android',
      activity: 'com.example.android.activity.main.MainActivity',
    });
  });
});

describe('dumpsys package captured on devices', () => {
  it('reads an Android 7 package with no permissions and no installer', () => {
    expect(
      parsePackageDetails(
        capture('real-dumpsys-package-android7.txt'),
        'com.example.testapp.first',
      ),
    ).toEqual({
      packageName: 'com.example.testapp.first',
      versionName: '1.0',
      versionCode: 1,
      minSdk: 21,
      targetSdk: 24,
      firstInstallTime: '2016-11-03 01:12:09',
      lastUpdateTime: '2016-11-03 01:12:09',
      system: false,
      requestedPermissions: [],
      grantedPermissions: [],
      deniedPermissions: [],
    });
  });

  it('reads an Android 9 package whose usesLibraries block precedes the permissions', () => {
    expect(
      parsePackageDetails(capture('real-dumpsys-package-android9.txt'), 'com.genymobile.gnirehtet'),
    ).toEqual({
      packageName: 'com.genymobile.gnirehtet',
      versionName: '2.3',
      versionCode: 6,
      minSdk: 21,
      targetSdk: 27,
      firstInstallTime: '2019-06-06 13:08:28',
      lastUpdateTime: '2019-06-06 13:19:05',
      system: false,
      requestedPermissions: [
        'android.permission.INTERNET',
        'android.permission.ACCESS_NETWORK_STATE',
      ],
      grantedPermissions: [],
      deniedPermissions: [],
    });
  });
});

describe('pm list packages captured on a device', () => {
  it('splits -f lines at the last = into APK path and package (Genymotion, Android 7 era)', () => {
    const packages = parsePackageList(capture('real-pm-list-packages-f-genymotion.txt'));
    expect(packages).toHaveLength(16);
    expect(packages[2]).toEqual({
      packageName: 'com.phonegap.camerasample',
      apkPath: '/data/app/com.phonegap.camerasample-2/base.apk',
    });
    expect(packages[10]).toEqual({
      packageName: 'android',
      apkPath: '/system/framework/framework-res.apk',
    });
    expect(packages.filter((entry) => entry.apkPath?.startsWith('/system/'))).toHaveLength(15);
  });
});

describe('dumpsys notification captured on devices', () => {
  it('reads the record of an Android 15 Pixel, whose flags are printed by name', () => {
    expect(parseNotifications(capture('real-dumpsys-notification-android15-pixel.txt'))).toEqual([
      {
        packageName: 'io.homeassistant.companion.android',
        id: 1355236419,
        key: '0|io.homeassistant.companion.android|1355236419|null|10321',
      },
    ]);
  });

  it('reads a tag and key holding colons and carets (Gmail)', () => {
    expect(parseNotifications(capture('real-dumpsys-notification-gmail.txt'))).toEqual([
      {
        packageName: 'com.google.android.gm',
        id: 0,
        key: '0|com.google.android.gm|0|gig:-900500736:^sq_ig_i_personal|10070',
      },
    ]);
  });
});

describe('getprop captured on a device', () => {
  it('reads every line of an Android P preview emulator dump, empty values included', () => {
    const properties = parseGetprop(capture('real-getprop-android-p-preview-emulator.txt'));
    expect(properties.size).toBe(37);
    expect(properties.get('ro.build.version.release')).toBe('P');
    expect(properties.get('ro.build.version.sdk')).toBe('27');
    expect(properties.get('ro.build.version.base_os')).toBe('');
    expect(properties.get('ro.hardware')).toBe('ranchu');
    expect(properties.get('ro.crypto.fs_crypto_blkdev')).toBe('/dev/block/dm-0');
  });
});

describe('dumpsys audio captured on a device', () => {
  it('reads the music volume of the device in use (Android 8 TV, no streamVolume line)', () => {
    expect(parseStreamVolume(capture('real-dumpsys-audio-android8-tv.txt'))).toEqual({
      volume: 20,
      min: 0,
      max: 60,
      muted: false,
      device: 'speaker',
    });
    expect(parseStreamVolume(capture('real-dumpsys-audio-android8-tv.txt'), 'STREAM_RING')).toEqual(
      { volume: 3, min: 0, max: 7, muted: true, device: 'speaker' },
    );
  });
});
