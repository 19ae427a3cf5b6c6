import type { SimApp, SimDeviceState, SimNode, SimScreen } from './device-model.js';

/** Options for {@link createDefaultDeviceState}. */
export interface DefaultDeviceOptions {
  /** `ro.product.model`. Default `Pixel 7`. */
  model?: string;
  /** `ro.build.version.release`. Default `14`. */
  release?: string;
  /** The device clock at start, ms since the epoch. Default 2026-03-17T16:13:47Z. */
  now?: number;
  /** Install the ADBKeyboard IME (`com.android.adbkeyboard`). Default false. */
  adbKeyboard?: boolean;
  /** Install the Clipper clipboard helper (`ca.zgrs.clipper`). Default true. */
  clipper?: boolean;
}

const W = 1080;
const H = 2400;

function app(packageName: string, system: boolean, extra: Partial<SimApp> = {}): SimApp {
  return {
    packageName,
    versionName: system ? '14' : '1.4.2',
    versionCode: system ? 34 : 142,
    system,
    permissions: [],
    firstInstallTime: Date.UTC(2025, 10, 3, 9, 12, 5),
    lastUpdateTime: Date.UTC(2026, 1, 20, 18, 40, 11),
    ...extra,
  };
}

function frame(children: SimNode[], resourceId?: string): SimNode {
  return {
    className: 'android.widget.FrameLayout',
    bounds: [0, 0, W, H],
    children: [
      {
        className: 'android.widget.LinearLayout',
        bounds: [0, 0, W, H],
        children: [
          {
            className: 'android.widget.FrameLayout',
            resourceId: resourceId ?? 'android:id/content',
            bounds: [0, 144, W, H],
            children,
          },
        ],
      },
    ],
  };
}

/** A TextView that only shows `text` (not clickable or focusable). */
function textView(resourceId: string, text: string, bounds: SimNode['bounds']): SimNode {
  return { className: 'android.widget.TextView', resourceId, text, bounds };
}

function settingsRow(index: number, title: string, summary: string, goTo?: string): SimNode {
  const top = 400 + index * 220;
  return {
    className: 'android.widget.LinearLayout',
    bounds: [0, top, W, top + 220],
    clickable: true,
    focusable: true,
    ...(goTo === undefined ? {} : { goTo }),
    children: [
      {
        className: 'android.widget.ImageView',
        resourceId: 'android:id/icon',
        bounds: [63, top + 68, 147, top + 152],
      },
      {
        className: 'android.widget.RelativeLayout',
        bounds: [210, top + 48, 1017, top + 172],
        children: [
          textView('android:id/title', title, [210, top + 48, 700, top + 110]),
          textView('android:id/summary', summary, [210, top + 110, 900, top + 172]),
        ],
      },
    ],
  };
}

const SETTINGS_ROWS: [string, string][] = [
  ['Network & internet', 'Wi‑Fi, mobile, data usage, and hotspot'],
  ['Connected devices', 'Bluetooth, pairing'],
  ['Apps', 'Assistant, recent apps, default apps'],
  ['Notifications', 'Notification history, conversations'],
  ['Battery', '87% - Should last until about 11:30 PM'],
  ['Storage', '41% used - 75.52 GB free'],
  ['Sound & vibration', 'Volume, haptics, Do Not Disturb'],
  ['Display', 'Dark theme, font size, brightness'],
  ['Wallpaper & style', 'Colors, themed icons, app grid'],
  ['Accessibility', 'Display, interaction, audio'],
  ['Security & privacy', 'App security, device lock, permissions'],
  ['Location', 'On - 5 apps have access to location'],
  ['Safety & emergency', 'Emergency SOS, medical info, alerts'],
  ['Passwords & accounts', 'Saved passwords, autofill, synced accounts'],
  ['Digital Wellbeing & parental controls', 'Screen time, app timers, bedtime schedules'],
  ['Google', 'Services & preferences'],
  ['System', 'Languages, gestures, time, backup'],
  ['About phone', 'Pixel 7'],
];

function screens(): SimScreen[] {
  const launcherIcons: [string, string][] = [
    ['Settings', 'settings'],
    ['Messages', 'chat'],
    ['Bank', 'bank-login'],
    ['Feed', 'feed'],
  ];
  const settingsPages = [SETTINGS_ROWS.slice(0, 9), SETTINGS_ROWS.slice(9)].map((rows) =>
    rows.map(([title, summary], index) =>
      settingsRow(index, title, summary, title === 'Display' ? 'settings-display' : undefined),
    ),
  );
  const feedPages = [0, 1, 2].map((page) =>
    Array.from({ length: 6 }, (_, index): SimNode => {
      const top = 300 + index * 340;
      const n = page * 6 + index + 1;
      return {
        className: 'android.view.ViewGroup',
        bounds: [0, top, W, top + 340],
        clickable: true,
        children: [
          textView('com.example.feed:id/author', `Author ${n}`, [40, top + 20, 600, top + 80]),
          textView(
            'com.example.feed:id/body',
            `Post number ${n}: a short update with some words in it.`,
            [40, top + 90, 1040, top + 250],
          ),
          {
            className: 'android.widget.ImageButton',
            resourceId: 'com.example.feed:id/like',
            contentDesc: 'Like',
            bounds: [40, top + 260, 140, top + 330],
            clickable: true,
            focusable: true,
          },
          {
            className: 'android.widget.ImageButton',
            resourceId: 'com.example.feed:id/share',
            bounds: [160, top + 260, 260, top + 330],
            clickable: true,
            focusable: true,
          },
        ],
      };
    }),
  );
  return [
    {
      id: 'launcher',
      packageName: 'com.google.android.apps.nexuslauncher',
      activity: 'com.google.android.apps.nexuslauncher.NexusLauncherActivity',
      root: frame(
        launcherIcons.map(([label, goTo], index) => ({
          className: 'android.widget.TextView',
          text: label,
          contentDesc: label,
          bounds: [60 + index * 250, 1800, 280 + index * 250, 2050],
          clickable: true,
          focusable: true,
          goTo,
        })),
      ),
    },
    {
      id: 'settings',
      packageName: 'com.android.settings',
      activity: 'com.android.settings.Settings',
      root: frame([
        { className: 'android.widget.TextView', text: 'Settings', bounds: [63, 200, 600, 330] },
        {
          className: 'androidx.recyclerview.widget.RecyclerView',
          resourceId: 'com.android.settings:id/recycler_view',
          bounds: [0, 400, W, H],
          scrollable: true,
          focusable: true,
          pages: settingsPages,
        },
      ]),
    },
    {
      id: 'settings-display',
      packageName: 'com.android.settings',
      activity: 'com.android.settings.SubSettings',
      root: frame([
        {
          className: 'android.widget.ImageButton',
          contentDesc: 'Navigate up',
          bounds: [0, 144, 147, 291],
          clickable: true,
          focusable: true,
          goTo: 'settings',
        },
        { className: 'android.widget.TextView', text: 'Display', bounds: [63, 300, 600, 430] },
        {
          className: 'android.widget.LinearLayout',
          bounds: [0, 500, W, 720],
          clickable: true,
          focusable: true,
          children: [
            textView('android:id/title', 'Dark theme', [63, 548, 700, 610]),
            {
              className: 'android.widget.Switch',
              resourceId: 'android:id/switch_widget',
              bounds: [880, 560, 1017, 660],
              checkable: true,
              checked: false,
              clickable: true,
              focusable: true,
              toggles: true,
            },
          ],
        },
      ]),
    },
    {
      id: 'chat',
      packageName: 'com.example.chat',
      activity: 'com.example.chat.MainActivity',
      root: frame([
        {
          className: 'android.widget.ImageButton',
          resourceId: 'com.example.chat:id/back',
          bounds: [0, 144, 147, 291],
          clickable: true,
          focusable: true,
          goTo: 'launcher',
        },
        textView('com.example.chat:id/title', 'Alice', [180, 170, 700, 270]),
        {
          className: 'androidx.recyclerview.widget.RecyclerView',
          resourceId: 'com.example.chat:id/messages',
          bounds: [0, 300, W, 2200],
          scrollable: true,
          children: [
            textView(
              'com.example.chat:id/message',
              'Are we still on for lunch?',
              [40, 320, 800, 420],
            ),
            textView(
              'com.example.chat:id/message',
              'Yes, 12:30 at the usual place',
              [280, 440, 1040, 540],
            ),
            textView('com.example.chat:id/message', 'Running 5 min late', [40, 1550, 800, 1750]),
          ],
        },
        {
          className: 'android.widget.EditText',
          resourceId: 'com.example.chat:id/compose',
          text: '',
          bounds: [20, 2220, 900, 2380],
          clickable: true,
          focusable: true,
          longClickable: true,
        },
        {
          className: 'android.widget.ImageButton',
          resourceId: 'com.example.chat:id/send',
          contentDesc: 'Send',
          bounds: [920, 2220, 1060, 2380],
          clickable: true,
          focusable: true,
          goTo: 'chat-sent',
        },
      ]),
    },
    {
      id: 'chat-sent',
      packageName: 'com.example.chat',
      activity: 'com.example.chat.MainActivity',
      root: frame([
        textView('com.example.chat:id/title', 'Alice', [180, 170, 700, 270]),
        textView('com.example.chat:id/status', 'Message sent', [40, 320, 800, 420]),
      ]),
    },
    {
      id: 'bank-login',
      packageName: 'com.example.bank',
      activity: 'com.example.bank.LoginActivity',
      secure: true,
      root: frame([
        {
          className: 'android.widget.EditText',
          resourceId: 'com.example.bank:id/pin',
          password: true,
          text: '',
          bounds: [100, 900, 980, 1060],
          clickable: true,
          focusable: true,
        },
        {
          className: 'android.widget.Button',
          resourceId: 'com.example.bank:id/login',
          text: 'Log in',
          bounds: [100, 1200, 980, 1360],
          clickable: true,
          focusable: true,
        },
      ]),
    },
    {
      id: 'feed',
      packageName: 'com.example.feed',
      activity: 'com.example.feed.FeedActivity',
      root: frame([
        {
          className: 'androidx.recyclerview.widget.RecyclerView',
          resourceId: 'com.example.feed:id/list',
          bounds: [0, 300, W, H],
          scrollable: true,
          focusable: true,
          pages: feedPages,
        },
      ]),
    },
    {
      // A screen far past any token budget: every row of a long list laid out at once (a
      // ScrollView, not a recycling list), so a dump holds all 100 contacts, ~400 nodes.
      id: 'contacts',
      packageName: 'com.example.chat',
      activity: 'com.example.chat.ContactsActivity',
      root: frame([
        {
          className: 'android.widget.ScrollView',
          resourceId: 'com.example.chat:id/contacts',
          bounds: [0, 144, W, H],
          scrollable: true,
          focusable: true,
          children: [
            {
              className: 'android.widget.LinearLayout',
              bounds: [0, 144, W, 144 + CONTACTS.length * 180],
              children: CONTACTS.map(contactRow),
            },
          ],
        },
      ]),
    },
  ];
}

const CONTACTS = Array.from({ length: 100 }, (_, index) => {
  const first = ['Ada', 'Ben', 'Chloé', 'Dev', 'Emi', 'Farid', 'Greta', 'Hugo', 'Iris', 'Jonas'];
  const last = ['Abara', 'Berg', 'Costa', 'Dahl', 'Endo', 'Fox', 'Gil', 'Haas', 'Ito', 'Jung'];
  return {
    name: `${first[index % 10]} ${last[Math.floor(index / 10)]}`,
    phone: `+1 555 01${String(index).padStart(2, '0')}`,
  };
});

function contactRow(contact: { name: string; phone: string }, index: number): SimNode {
  const top = 144 + index * 180;
  return {
    className: 'android.widget.LinearLayout',
    resourceId: 'com.example.chat:id/contact',
    bounds: [0, top, W, top + 180],
    clickable: true,
    focusable: true,
    children: [
      textView('com.example.chat:id/name', contact.name, [40, top + 20, 800, top + 90]),
      textView('com.example.chat:id/phone', contact.phone, [40, top + 90, 800, top + 160]),
      {
        className: 'android.widget.CheckBox',
        resourceId: 'com.example.chat:id/favorite',
        contentDesc: 'Favorite',
        bounds: [920, top + 50, 1020, top + 130],
        checkable: true,
        clickable: true,
        focusable: true,
        toggles: true,
      },
    ],
  };
}

/**
 * A fresh device: a Pixel-like phone on the launcher, unlocked, with Settings, a chat app (a text
 * field and a send button; its `.ContactsActivity` is a list of 100 contacts, ~400 nodes), a bank app whose login window is secure, a long feed, a music player
 * with a media session, a few notifications, a location and a logcat ring.
 */
export function createDefaultDeviceState(options: DefaultDeviceOptions = {}): SimDeviceState {
  const now = options.now ?? Date.UTC(2026, 2, 17, 16, 13, 47, 413);
  const apps = new Map<string, SimApp>();
  const add = (entry: SimApp) => apps.set(entry.packageName, entry);
  add(app('android', true));
  add(app('com.android.systemui', true));
  add(app('com.android.settings', true, { launchScreen: 'settings' }));
  add(app('com.google.android.apps.nexuslauncher', true, { launchScreen: 'launcher' }));
  add(app('com.google.android.inputmethod.latin', true));
  add(
    app('com.example.chat', false, {
      launchScreen: 'chat',
      permissions: [
        'android.permission.INTERNET',
        'android.permission.CAMERA',
        'android.permission.POST_NOTIFICATIONS',
      ],
    }),
  );
  add(
    app('com.example.bank', false, {
      launchScreen: 'bank-login',
      permissions: ['android.permission.INTERNET'],
    }),
  );
  add(
    app('com.example.feed', false, {
      launchScreen: 'feed',
      permissions: ['android.permission.INTERNET'],
    }),
  );
  add(app('com.example.music', false, { permissions: ['android.permission.FOREGROUND_SERVICE'] }));
  if (options.clipper ?? true)
    add(app('ca.zgrs.clipper', false, { versionName: '1.2.1', versionCode: 3 }));
  if (options.adbKeyboard)
    add(app('com.android.adbkeyboard', false, { versionName: '2.0', versionCode: 2 }));
  const state: SimDeviceState = {
    properties: {
      'ro.product.model': options.model ?? 'Pixel 7',
      'ro.product.manufacturer': 'Google',
      'ro.product.brand': 'google',
      'ro.product.name': 'panther',
      'ro.product.device': 'panther',
      'ro.build.version.release': options.release ?? '14',
      'ro.build.version.sdk': '34',
      'ro.build.fingerprint':
        'google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys',
      'ro.product.cpu.abi': 'arm64-v8a',
      'ro.serialno': '28291FDH2001AB',
      'persist.sys.timezone': 'Etc/UTC',
    },
    display: { width: W, height: H, density: 420 },
    apps,
    screens: new Map(screens().map((screen) => [screen.id, screen])),
    screenId: 'launcher',
    backStack: [],
    processes: new Map([
      ['com.android.systemui', 1432],
      ['com.google.android.apps.nexuslauncher', 2210],
      ['com.example.music', 4120],
    ]),
    screenOn: true,
    locked: false,
    lockHasCredential: false,
    settings: {
      system: new Map([
        ['screen_brightness', '102'],
        ['screen_off_timeout', '30000'],
        ['font_scale', '1.0'],
      ]),
      secure: new Map([
        [
          'default_input_method',
          'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME',
        ],
        ['location_mode', '3'],
      ]),
      global: new Map([
        ['airplane_mode_on', '0'],
        ['adb_enabled', '1'],
        ['development_settings_enabled', '1'],
      ]),
    },
    clipboard: '',
    log: [],
    notifications: [
      {
        packageName: 'com.example.chat',
        id: 1,
        title: 'Alice',
        text: 'Are we still on for lunch?',
        postTime: now - 60_000,
        channel: 'messages',
      },
      {
        packageName: 'com.android.systemui',
        id: 7,
        title: 'USB debugging connected',
        text: 'Tap to turn off USB debugging',
        postTime: now - 3_600_000,
      },
    ],
    location: {
      provider: 'gps',
      latitude: 37.421998,
      longitude: -122.084,
      accuracy: 5,
      time: now - 4_000,
      altitude: 5,
    },
    mediaSessions: [
      {
        packageName: 'com.example.music',
        state: 2,
        track: 0,
        tracks: [
          { title: 'Clair de Lune', artist: 'Debussy', album: 'Suite bergamasque' },
          { title: 'Gymnopédie No.1', artist: 'Satie', album: 'Gymnopédies' },
        ],
      },
    ],
    volume: 7,
    now,
    files: new Map(),
    nextPid: 5000,
  };
  const base = now - 120_000;
  const entries: [number, number, 'V' | 'D' | 'I' | 'W' | 'E' | 'F', string, string][] = [
    [
      1799,
      1821,
      'I',
      'ActivityManager',
      'Start proc 4120:com.example.music/u0a150 for service {com.example.music/.PlayerService}',
    ],
    [4120, 4120, 'D', 'MusicPlayer', 'session created'],
    [4120, 4133, 'W', 'MusicPlayer', 'audio focus lost transiently'],
    [1432, 1432, 'E', 'SystemUI', 'NotificationEntry: failed to inflate row'],
    [4120, 4133, 'E', 'MusicPlayer', 'decoder error: unsupported codec mp4a.40.5'],
    [
      1799,
      1830,
      'I',
      'PowerManagerService',
      'Waking up from Asleep (uid=1000, reason=WAKE_REASON_POWER_BUTTON)',
    ],
  ];
  entries.forEach(([pid, tid, level, tag, message], index) => {
    state.log.push({ time: base + index * 10_000, pid, tid, level, tag, message });
  });
  return state;
}
