// `dumpsys` and the services it dumps: activities, windows, power, input method, notifications,
// location, media sessions, audio (packages are in package-manager.ts).
import type { SimDevice } from '../sim-device.js';
import { type CommandOutput, ok } from './command-output.js';
import { hexId, shortActivity } from './dump-format.js';
import { dumpsysPackage } from './package-manager.js';
import { currentIme } from './system-commands.js';

/** `dumpsys SERVICE …`: what real Android prints for the services the tools read. */
export function dumpsys(device: SimDevice, args: string[]): CommandOutput {
  const [service, ...rest] = args;
  switch (service) {
    case 'package':
      return dumpsysPackage(device, rest[0]);
    case 'activity':
      if (rest[0] === 'services') return ok(dumpsysServices(device, rest[1]));
      return ok(dumpsysActivities(device));
    case 'window':
      return ok(dumpsysWindow(device));
    case 'power':
      return ok(dumpsysPower(device));
    case 'input_method':
      return ok(dumpsysInputMethod(device));
    case 'notification':
      return ok(dumpsysNotification(device, rest.includes('--noredact')));
    case 'location':
      return ok(dumpsysLocation(device));
    case 'media_session':
      return ok(dumpsysMediaSession(device));
    case 'audio':
      return ok(dumpsysAudio(device));
    case 'battery':
      return ok(
        'Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n  Max charging current: 500000\n  status: 2\n  health: 2\n  present: true\n  level: 87\n  scale: 100\n  voltage: 4211\n  temperature: 281\n  technology: Li-ion\n',
      );
    default:
      return ok(`Can't find service: ${service ?? ''}\n`);
  }
}

/**
 * `dumpsys activity services [PACKAGE]`: a helper app the sim has no screens for (such as
 * io.appium.settings) runs a foreground service while its process lives.
 */
function dumpsysServices(device: SimDevice, filter: string | undefined): string {
  const lines = ['ACTIVITY MANAGER SERVICES (dumpsys activity services)'];
  const running = [...device.state.processes.keys()].filter((packageName) => {
    const app = device.state.apps.get(packageName);
    return (
      app !== undefined &&
      !app.system &&
      (filter === undefined || packageName === filter) &&
      ![...device.state.screens.values()].some((screen) => screen.packageName === packageName)
    );
  });
  if (running.length === 0) return `${lines.join('\n')}\n  (nothing)\n`;
  lines.push('  User 0 active services:');
  for (const packageName of running) {
    const id = hexId(`${packageName}s`);
    lines.push(
      `  * ServiceRecord{${id} u0 ${packageName}/.ForegroundService}`,
      `    intent={cmp=${packageName}/.ForegroundService}`,
      `    packageName=${packageName}`,
      `    processName=${packageName}`,
      `    app=ProcessRecord{${hexId(`${packageName}p`)} ${device.state.processes.get(packageName)}:${packageName}/u0a${Number.parseInt(id, 16) % 900}}`,
      `    isForeground=true foregroundId=1 foregroundNoti=Notification(channel=main_channel)`,
      '    createTime=-1m2s isRunning=true',
    );
  }
  return `${lines.join('\n')}\n`;
}

function topRecord(device: SimDevice): string {
  const screen = device.screen;
  return `ActivityRecord{${hexId(screen.id)} u0 ${shortActivity(screen.packageName, screen.activity)} t${40 + (Number.parseInt(hexId(screen.packageName), 16) % 50)}}`;
}

/**
 * `dumpsys activity activities` as Android 14 prints it: the task with its `topResumedActivity=`
 * (Android 10 replaced `mResumedActivity:`), the resumed activities and `ResumedActivity:`.
 */
function dumpsysActivities(device: SimDevice): string {
  const screen = device.screen;
  const taskNumber = 40 + (Number.parseInt(hexId(screen.packageName), 16) % 50);
  return [
    'ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)',
    'Display #0 (activities from top to bottom):',
    `  * Task{${hexId(`${screen.packageName}t`)} #${taskNumber} type=standard A=10123:${screen.packageName} U=0 visible=true visibleRequested=true mode=fullscreen translucent=false sz=1}`,
    '    isSleeping=false',
    `    topResumedActivity=${topRecord(device)}`,
    `    * Hist  #0: ${topRecord(device)}`,
    `        packageName=${screen.packageName} processName=${screen.packageName}`,
    '',
    '  Resumed activities in task display areas (from top to bottom):',
    `    Resumed: ${topRecord(device)}`,
    '',
    `  ResumedActivity: ${topRecord(device)}`,
    '',
  ].join('\n');
}

/**
 * `dumpsys window` in Android 14's section order: the policy (with `KeyguardServiceDelegate`), the
 * display contents (`mCurrentFocus`, `mFocusedApp`, `DisplayPolicy` with `isKeyguardShowing=` and
 * the focused window named again), then the window list whose `mAttrs` carry the flags.
 */
function dumpsysWindow(device: SimDevice): string {
  const screen = device.screen;
  const { locked, screenOn } = device.state;
  const windowName = `${screen.packageName}/${screen.activity}`;
  const appWindow = `Window{${hexId(windowName)} u0 ${windowName}}`;
  const shadeWindow = `Window{${hexId('keyguard')} u0 NotificationShade}`;
  const focus = locked ? shadeWindow : appWindow;
  const flags = `fl=LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SPLIT_TOUCH HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS${screen.secure ? ' SECURE' : ''}`;
  const { width, height, density } = device.state.display;
  return [
    'WINDOW MANAGER POLICY STATE (dumpsys window policy)',
    '    mSafeMode=false mSystemReady=true mSystemBooted=true',
    '    KeyguardServiceDelegate',
    `      showing=${locked}`,
    `      showingAndNotOccluded=${locked}`,
    `      inputRestricted=${locked}`,
    '      occluded=false',
    `      secure=${device.state.lockHasCredential}`,
    '      dreaming=false',
    '      systemIsReady=true',
    '      deviceHasKeyguard=true',
    '      enabled=true',
    '      currentUser=0',
    '      bootCompleted=true',
    `      screenState=${screenOn ? 'SCREEN_STATE_ON' : 'SCREEN_STATE_OFF'}`,
    `      interactiveState=${screenOn ? 'INTERACTIVE_STATE_AWAKE' : 'INTERACTIVE_STATE_SLEEP'}`,
    '      KeyguardStateMonitor',
    `        mIsShowing=${locked}`,
    '        mSimSecure=false',
    `        mInputRestricted=${locked}`,
    '        mTrusted=false',
    '        mCurrentUserId=0',
    '',
    'WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)',
    '  Display: mDisplayId=0 rootTasks=3',
    `    init=${width}x${height} ${density}dpi cur=${width}x${height} app=${width}x${height - 144} rng=1080x1017-2400x2337`,
    '',
    `  mCurrentFocus=${focus}`,
    `  mFocusedApp=${topRecord(device)}`,
    '',
    '  DisplayPolicy',
    `    mAwake=${screenOn} mScreenOnEarly=${screenOn} mScreenOnFully=${screenOn}`,
    '    mShowingDream=false mDreamingLockscreen=false',
    `    mStatusBar=Window{${hexId('statusbar')} u0 StatusBar}`,
    `    mExpandedPanel=${shadeWindow}`,
    `    isKeyguardShowing=${locked}`,
    `    mFocusedWindow=${focus}`,
    `    mTopFullscreenOpaqueWindowState=${appWindow}`,
    '',
    'WINDOW MANAGER WINDOWS (dumpsys window windows)',
    `  Window #0 ${appWindow}:`,
    `    mDisplayId=0 rootTaskId=42 mSession=Session{${hexId('session')} 1234:u0a10123} mClient=android.os.BinderProxy@${hexId('client')}`,
    `    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION fmt=TRANSPARENT wanim=0x10302f8`,
    `      ${flags}`,
    '      pfl=FORCE_DRAW_STATUS_BAR_BACKGROUND FIT_INSETS_CONTROLLED}',
    '',
    `  mInputMethodWindow=Window{${hexId('ime')} u0 InputMethod}`,
    '',
  ].join('\n');
}

function dumpsysPower(device: SimDevice): string {
  return [
    'POWER MANAGER (dumpsys power)',
    '',
    'Power Manager State:',
    '  mDirty=0x0',
    `  mWakefulness=${device.state.screenOn ? 'Awake' : 'Asleep'}`,
    `  mWakefulnessChanging=false`,
    '  mIsPowered=true',
    '  mPlugType=2',
    `  mInteractive=${device.state.screenOn}`,
    `  mHoldingDisplaySuspendBlocker=${device.state.screenOn}`,
    '',
    `Display Power: state=${device.state.screenOn ? 'ON' : 'OFF'}`,
    '',
  ].join('\n');
}

function dumpsysInputMethod(device: SimDevice): string {
  const shown = device.keyboardShown;
  const field = device.focusedField;
  return [
    'Current Input Method Manager state:',
    '  Input Methods: mMethodMapUpdateCount=3',
    `  mCurMethodId=${currentIme(device)}`,
    `  mCurFocusedWindow=Window{${hexId(device.screen.packageName)} u0 ${device.screen.packageName}/${device.screen.activity}}`,
    `  mCurFocusedWindowSoftInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE|IS_FORWARD_NAVIGATION`,
    `  mCurAttribute=${field ? `EditorInfo{inputType=0x${field.password ? '81' : '1'} imeOptions=0x6 privateImeOptions=null}` : 'null'}`,
    `  mImeWindowVis=${shown ? 3 : 0}`,
    `  mInputShown=${shown}`,
    `  mShowRequested=${shown} mShowExplicitlyRequested=false mShowForced=false`,
    '',
  ].join('\n');
}

function dumpsysNotification(device: SimDevice, noRedact: boolean): string {
  const lines = ['Current Notification Manager state:', '  Notification List:'];
  for (const notification of device.state.notifications) {
    const key = `0|${notification.packageName}|${notification.id}|null|10123`;
    const title = noRedact ? notification.title : `[${notification.title.length}]`;
    const text = noRedact ? notification.text : `[${notification.text.length}]`;
    lines.push(
      `    NotificationRecord(0x${hexId(key)}: pkg=${notification.packageName} user=UserHandle{0} id=${notification.id} tag=null importance=4 key=${key}: Notification(channel=${notification.channel ?? 'default'} shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE))`,
      `      uid=10123 userId=0`,
      `      opPkg=${notification.packageName}`,
      `      icon=Icon(typ=RESOURCE pkg=${notification.packageName} id=0x7f080123)`,
      `      pri=0`,
      `      key=${key}`,
      `      seen=false`,
      `      postTime=${notification.postTime}`,
      '      extras={',
      `        android.title=String (${title})`,
      `        android.text=String (${text})`,
      '        android.subText=null',
      '        android.showWhen=Boolean (true)',
      '      }',
    );
  }
  lines.push('', '  mSnoozedNotifications:', '');
  return lines.join('\n');
}

/**
 * `dumpsys location` as Android 12+ prints it: a block per provider with its `last location=`
 * (`null` when it has none); the passive provider repeats the last fix of any provider.
 */
function dumpsysLocation(device: SimDevice): string {
  const location = device.state.location;
  let record = 'null';
  if (location) {
    const ageMs = Math.max(0, device.state.now - location.time);
    const altitude = location.altitude === undefined ? '' : ` alt=${location.altitude.toFixed(1)}`;
    record = `Location[${location.provider} ${location.latitude.toFixed(6)},${location.longitude.toFixed(6)} hAcc=${location.accuracy} et=+${Math.floor(ageMs / 1000)}s${ageMs % 1000}ms${altitude} vAcc=??? sAcc=??? bAcc=???]`;
  }
  const lines = [
    'Location Manager State:',
    '  User Info:',
    '    current user: [0]',
    `  Location Setting: ${location !== undefined}`,
    '  Location Providers:',
  ];
  for (const provider of ['passive', 'network', 'fused', 'gps']) {
    const own = provider === 'passive' || provider === location?.provider;
    lines.push(
      `    ${provider} provider:`,
      `      last location=${own ? record : 'null'}`,
      '      enabled=true',
    );
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * `dumpsys media_session` as Android 14 prints it (`MediaSessionService.dump`): the sessions under
 * `Record for full_user=0`, each with a `PlaybackState` whose state prints as `NAME(code)`.
 */
function dumpsysMediaSession(device: SimDevice): string {
  const sessions = device.state.mediaSessions;
  const top = sessions[0];
  const lines = [
    'MEDIA SESSION SERVICE (dumpsys media_session)',
    '',
    '2 sessions listeners.',
    'Global priority session is null',
    'User Records:',
    'Record for full_user=0',
    '  Media key listener: null',
    '  Last MediaButtonReceiver: null',
    `  Media button session is ${top ? `${top.packageName}/media-session (userId=0)` : 'null'}`,
    `  Sessions Stack - have ${sessions.length} sessions:`,
  ];
  for (const session of sessions) {
    const track = session.tracks[session.track];
    lines.push(
      `    media-session ${session.packageName}/media-session (userId=0)`,
      `      ownerPid=${device.state.processes.get(session.packageName) ?? 0}, ownerUid=10150, userId=0`,
      `      package=${session.packageName}`,
      '      launchIntent=null',
      '      mediaButtonReceiver=null',
      `      active=${session.active ?? true}`,
      '      flags=3',
      '      rating type=0',
      '      controllers: 1',
      session.state === 0
        ? '      state=null'
        : `      state=PlaybackState {state=${PLAYBACK_STATE_NAMES[session.state] ?? 'UNKNOWN'}(${session.state}), position=12000, buffered position=0, speed=${session.state === 3 ? '1.0' : '0.0'}, updated=${device.state.now}, actions=3670015, custom actions=[], active item id=-1, error=null}`,
      '      audioAttrs=AudioAttributes: usage=USAGE_MEDIA content=CONTENT_TYPE_MUSIC flags=0x800 tags= bundle=null',
      '      volumeType=LOCAL, controlType=ABSOLUTE, max=0, current=0, volumeControlId=null',
      `      metadata: size=5, description=${track ? `${track.title}, ${track.artist}, ${track.album}` : 'null'}`,
      '      queueTitle=null, size=0',
    );
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * `dumpsys audio`, only its `Stream volumes (device: index)` list for the music stream, as
 * Android 14 prints it (`AudioService.dumpStreamStates`); the output device is the speaker.
 */
function dumpsysAudio(device: SimDevice): string {
  const volume = device.state.volume;
  return [
    'Stream volumes (device: index)',
    '- STREAM_MUSIC:',
    '   Muted: false',
    '   Muted Internally: false',
    '   Min: 0',
    '   Max: 15',
    `   streamVolume:${volume}`,
    `   Current: 2 (speaker): ${volume}, 40000000 (default): ${volume}`,
    '   Devices: speaker(2)',
    '   Volume Group: AUDIO_STREAM_MUSIC',
    '',
  ].join('\n');
}

/** `PlaybackState.getStringForStateInt`, which Android 13+ prints before the state code. */
const PLAYBACK_STATE_NAMES: Record<number, string> = {
  0: 'NONE',
  1: 'STOPPED',
  2: 'PAUSED',
  3: 'PLAYING',
  4: 'FAST_FORWARDING',
  5: 'REWINDING',
  6: 'BUFFERING',
  7: 'ERROR',
  8: 'CONNECTING',
  9: 'SKIPPING_TO_PREVIOUS',
  10: 'SKIPPING_TO_NEXT',
  11: 'SKIPPING_TO_QUEUE_ITEM',
};
