/** A notification as `dumpsys notification --noredact` shows it. */
export interface DeviceNotification {
  readonly packageName: string;
  readonly id: number;
  readonly key: string;
  readonly title?: string;
  readonly text?: string;
  /** Post time, ms since the epoch, when printed. */
  readonly postTime?: number;
}

function extra(block: string, name: string): string | undefined {
  const match = new RegExp(
    `${name.replaceAll('.', '\\.')}=(?:String|SpannableString|CharSequence)? ?\\((.*)\\)\\s*$`,
    'm',
  ).exec(block);
  return match?.[1];
}

/**
 * Parses `dumpsys notification --noredact`: one `NotificationRecord(…: pkg=P user=… id=N …
 * key=K: Notification(…))` per notification, with its `extras={ android.title=String (…) … }`.
 * Without `--noredact` the texts are lengths such as `[12]` and are dropped.
 */
export function parseNotifications(output: string): DeviceNotification[] {
  const notifications: DeviceNotification[] = [];
  const starts = [
    ...output.matchAll(
      /NotificationRecord\(0x[0-9a-f]+: pkg=(\S+) user=\S+ id=(-?\d+) tag=\S+ (?:importance|score)=\S+ key=(\S+?): Notification\(/g,
    ),
  ];
  starts.forEach((match, index) => {
    const next = starts[index + 1]?.index ?? output.length;
    const block = output.slice(match.index, next);
    const title = extra(block, 'android.title');
    const text = extra(block, 'android.bigText') ?? extra(block, 'android.text');
    const postTime = /postTime=(\d+)/.exec(block)?.[1];
    const notification: { -readonly [K in keyof DeviceNotification]: DeviceNotification[K] } = {
      packageName: match[1] as string,
      id: Number(match[2]),
      key: match[3] as string,
    };
    if (title !== undefined && !/^\[\d+\]$/.test(title)) notification.title = title;
    if (text !== undefined && !/^\[\d+\]$/.test(text)) notification.text = text;
    if (postTime !== undefined) notification.postTime = Number(postTime);
    notifications.push(notification);
  });
  return notifications;
}
