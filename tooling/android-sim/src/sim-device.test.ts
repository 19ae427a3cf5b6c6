import { describe, expect, it } from 'vitest';
import { createDefaultDeviceState } from './default-device.js';
import { SimDevice } from './sim-device.js';

function device(): SimDevice {
  return new SimDevice(createDefaultDeviceState());
}

function text(sim: SimDevice, command: string): string {
  return sim.run(command).stdout.toString('utf8');
}

describe('SimDevice', () => {
  it('launches an app with monkey and shows it in dumpsys window', () => {
    const sim = device();
    expect(text(sim, 'monkey -p com.example.chat -c android.intent.category.LAUNCHER 1')).toContain(
      'Events injected: 1',
    );
    expect(text(sim, 'dumpsys window')).toMatch(
      /mCurrentFocus=Window\{\w+ u0 com\.example\.chat\/com\.example\.chat\.MainActivity\}/,
    );
  });

  it('focuses a text field on tap, shows the keyboard and types ASCII into it', () => {
    const sim = device();
    sim.run('am start -n com.example.chat/.MainActivity');
    sim.run('input tap 400 2300');
    expect(text(sim, 'dumpsys input_method')).toContain('mInputShown=true');
    sim.run('input text hello%sworld');
    expect(sim.focusedField?.text).toBe('hello world');
  });

  it('fails like stock input text on non-ASCII text and leaves the field unchanged', () => {
    const sim = device();
    sim.run('am start -n com.example.chat/.MainActivity');
    sim.run('input tap 400 2300');
    const output = sim.run("input text '你好'");
    expect(output.exitCode).toBe(255);
    expect(sim.focusedField?.text).toBe('');
  });

  it('moves to the next screen when a button with a target is tapped', () => {
    const sim = device();
    sim.run('am start -n com.example.chat/.MainActivity');
    sim.run('input tap 990 2300');
    expect(sim.screen.id).toBe('chat-sent');
    sim.run('input keyevent KEYCODE_BACK');
    expect(sim.screen.id).toBe('chat');
  });

  it('gives a black PNG for a secure window', () => {
    const sim = device();
    sim.run('monkey -p com.example.bank 1');
    const png = sim.run('screencap -p').stdout;
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(text(sim, 'dumpsys window')).toMatch(/^ {6}fl=.* SECURE$/m);
  });

  it('locks on power and reports it in dumpsys window and power', () => {
    const sim = device();
    sim.run('input keyevent 26');
    expect(text(sim, 'dumpsys power')).toContain('mWakefulness=Asleep');
    expect(text(sim, 'dumpsys window')).toContain('isKeyguardShowing=true');
    sim.run('input keyevent KEYCODE_WAKEUP && input keyevent 82');
    expect(text(sim, 'dumpsys window')).toContain('isKeyguardShowing=false');
  });

  it('prints the window dump in Android 14 section order, the focused window named before its flags', () => {
    const sim = device();
    sim.run('monkey -p com.example.bank 1');
    const output = text(sim, 'dumpsys window');
    const focus = /mCurrentFocus=(Window\{\w+ )/.exec(output)?.[1] ?? 'missing';
    expect(output.indexOf('WINDOW MANAGER DISPLAY CONTENTS')).toBeLessThan(
      output.indexOf('WINDOW MANAGER WINDOWS'),
    );
    expect(output).toContain(`    mFocusedWindow=${focus}`);
    expect(output.indexOf(`mFocusedWindow=${focus}`)).toBeLessThan(
      output.indexOf(`Window #0 ${focus}`),
    );
  });

  it('prints topResumedActivity= and ResumedActivity: in dumpsys activity activities', () => {
    const sim = device();
    sim.run('am start -n com.example.chat/.MainActivity');
    const output = text(sim, 'dumpsys activity activities');
    expect(output).toMatch(
      /^ {4}topResumedActivity=ActivityRecord\{\w+ u0 com\.example\.chat\/\.MainActivity t\d+\}$/m,
    );
    expect(output).toMatch(/^ {2}ResumedActivity: ActivityRecord\{/m);
    expect(output).not.toContain('mResumedActivity');
  });

  it('prints the playback state by name and code, and the music volume in dumpsys audio', () => {
    const sim = device();
    const session = sim.state.mediaSessions[0];
    if (!session) throw new Error('the default device has a media session');
    session.state = 3;
    expect(text(sim, 'dumpsys media_session')).toMatch(
      /^ {6}state=PlaybackState \{state=PLAYING\(3\), position=/m,
    );
    sim.run('input keyevent KEYCODE_MEDIA_PLAY_PAUSE');
    expect(text(sim, 'dumpsys media_session')).toContain('{state=PAUSED(2), ');
    const volume = sim.state.volume;
    sim.run('input keyevent KEYCODE_VOLUME_UP');
    const audio = text(sim, 'dumpsys audio');
    expect(audio).toContain(`- STREAM_MUSIC:\n   Muted: false\n`);
    expect(audio).toContain(`   streamVolume:${Math.min(15, volume + 1)}\n`);
  });

  it('reads and sets the music volume with cmd media_session volume as Android 11+ prints it', () => {
    const sim = device();
    sim.state.volume = 7;
    expect(text(sim, 'cmd media_session volume --stream 3 --get')).toBe(
      '[V] will control stream=3 (STREAM_MUSIC)\n[V] will get volume\n[V] Connecting to AudioService\n[V] volume is 7 in range [0..15]\n',
    );
    sim.run('cmd media_session volume --stream 3 --set 11');
    expect(sim.state.volume).toBe(11);
    const old = sim.run('media volume --stream 3 --get');
    expect(old.exitCode).toBe(127);
    expect(old.stderr).toBe('/system/bin/sh: media: inaccessible or not found\n');
  });

  it('answers media volume up to Android 10, where cmd media_session has no shell command', () => {
    const sim = device();
    sim.state.properties['ro.build.version.sdk'] = '29';
    sim.state.volume = 4;
    const modern = sim.run('cmd media_session volume --stream 3 --get');
    expect(modern.exitCode).toBe(255);
    expect(modern.stderr).toBe('No shell command implementation.\n');
    expect(text(sim, 'media volume --stream 3 --get')).toBe(
      '[v] will control stream=3 (STREAM_MUSIC)\n[v] will get volume\n[v] Connecting to AudioService\n[v] volume is 4 in range [0..15]\n',
    );
  });

  it('has neither cmd nor media volume on Android 6', () => {
    const sim = device();
    sim.state.properties['ro.build.version.sdk'] = '23';
    expect(sim.run('cmd media_session volume --stream 3 --get').exitCode).toBe(127);
    const media = sim.run('media volume --stream 3 --get');
    expect(media.exitCode).toBe(1);
    expect(media.stderr).toBe("Error: unknown command 'volume'\n");
  });

  it('prints an inactive session without a playback state as state=null', () => {
    const sim = device();
    sim.state.mediaSessions.splice(0, sim.state.mediaSessions.length, {
      packageName: 'com.android.server.telecom',
      state: 0,
      active: false,
      tracks: [],
      track: 0,
    });
    const output = text(sim, 'dumpsys media_session');
    expect(output).toContain('      active=false\n');
    expect(output).toContain('      state=null\n');
  });

  it('prints the last location under each provider as Android 12+ does', () => {
    const sim = device();
    sim.state.location = {
      provider: 'gps',
      latitude: 48.858412,
      longitude: 2.294503,
      accuracy: 4,
      time: sim.state.now - 2500,
    };
    const output = text(sim, 'dumpsys location');
    expect(output).toMatch(
      /^ {4}gps provider:\n {6}last location=Location\[gps 48\.858412,2\.294503 hAcc=4 et=\+2s\d+ms vAcc=\?\?\? sAcc=\?\?\? bAcc=\?\?\?\]$/m,
    );
    expect(output).toContain('    passive provider:\n      last location=Location[gps 48.858412,');
    expect(output).toContain('    fused provider:\n      last location=null\n');
  });

  it('prints logcat threadtime lines, filtered by pid and tail count', () => {
    const sim = device();
    const lines = text(sim, 'logcat -d -v threadtime --pid=4120 -t 2').trim().split('\n');
    expect(lines).toEqual([
      '--------- beginning of main',
      '03-17 16:12:07.413  4120  4133 W MusicPlayer: audio focus lost transiently',
      '03-17 16:12:27.413  4120  4133 E MusicPlayer: decoder error: unsupported codec mp4a.40.5',
    ]);
  });

  it('answers an unknown command with exit 127 like toybox sh', () => {
    expect(device().run('frobnicate')).toMatchObject({
      exitCode: 127,
      stderr: '/system/bin/sh: frobnicate: inaccessible or not found\n',
    });
  });

  it('starts a helper app without screens, which then runs a foreground service', () => {
    const sim = device();
    sim.state.apps.set('io.appium.settings', {
      packageName: 'io.appium.settings',
      versionName: '7.0.0',
      versionCode: 1,
      system: false,
      permissions: [],
      firstInstallTime: 0,
      lastUpdateTime: 0,
    });
    expect(text(sim, 'dumpsys activity services io.appium.settings')).toBe(
      'ACTIVITY MANAGER SERVICES (dumpsys activity services)\n  (nothing)\n',
    );
    const started = sim.run('am start-activity -n io.appium.settings/.Settings');
    expect(started.exitCode).toBe(0);
    expect(sim.screen.id).toBe('launcher');
    expect(text(sim, 'dumpsys activity services io.appium.settings')).toContain(
      'isForeground=true',
    );
    expect(text(sim, 'ps')).toMatch(/ S io\.appium\.settings$/m);
    sim.run('am force-stop io.appium.settings');
    expect(text(sim, 'ps')).not.toContain('io.appium.settings');
  });

  it('lists instrumentations and still refuses an unknown activity of a scripted app', () => {
    const sim = device();
    expect(text(sim, 'pm list instrumentation')).toBe('');
    sim.state.apps.set('org.example.test', {
      packageName: 'org.example.test',
      versionName: '1.0',
      versionCode: 1,
      system: false,
      permissions: [],
      firstInstallTime: 0,
      lastUpdateTime: 0,
      instrumentation: {
        name: 'androidx.test.runner.AndroidJUnitRunner',
        targetPackage: 'org.example',
      },
    });
    expect(text(sim, 'pm list instrumentation')).toBe(
      'instrumentation:org.example.test/androidx.test.runner.AndroidJUnitRunner (target=org.example)\n',
    );
    expect(sim.run('am start -n com.example.chat/.Nope').exitCode).toBe(1);
  });

  it('types Unicode into the focused field only', () => {
    const sim = device();
    sim.run('am start -n com.example.chat/.MainActivity');
    expect(sim.typeText('你好')).toBe(false);
    sim.run('input tap 400 2300');
    expect(sim.typeText('ça ')).toBe(true);
    expect(sim.typeText('你好')).toBe(true);
    expect(sim.focusedField?.text).toBe('ça 你好');
    sim.typeText('new', { replace: true });
    expect(sim.focusedField?.text).toBe('new');
  });
});
