/** A media session from `dumpsys media_session`. */
export interface MediaSessionInfo {
  readonly packageName: string;
  /** `playing`, `paused`, `stopped`, … from PlaybackState's state code. */
  readonly state: string;
  readonly stateCode: number;
  /** `title, artist, album` as the metadata description prints it. */
  readonly description?: string;
  readonly active: boolean;
}

const STATES: Record<number, string> = {
  0: 'none',
  1: 'stopped',
  2: 'paused',
  3: 'playing',
  4: 'fast_forwarding',
  5: 'rewinding',
  6: 'buffering',
  7: 'error',
  8: 'connecting',
  9: 'skipping_to_previous',
  10: 'skipping_to_next',
  11: 'skipping_to_queue_item',
};

/**
 * Parses the session records of `dumpsys media_session` (`package=`, `active=`, `state=PlaybackState
 * {state=…}`, `metadata: … description=…`). The state prints as a bare code up to Android 12
 * (`state=3`) and as name and code from Android 13 (`state=PLAYING(3)`); `state=null` reads as none.
 */
export function parseMediaSessions(output: string): MediaSessionInfo[] {
  const sessions: MediaSessionInfo[] = [];
  const starts = [...output.matchAll(/^\s+package=(\S+)$/gm)];
  starts.forEach((match, index) => {
    const block = output.slice(match.index, starts[index + 1]?.index ?? output.length);
    const stateCode = Number(
      /state=PlaybackState \{state=(?:[A-Z_]+\()?(\d+)/.exec(block)?.[1] ?? 0,
    );
    const description = /metadata:.*description=(.*)$/m.exec(block)?.[1];
    const session: { -readonly [K in keyof MediaSessionInfo]: MediaSessionInfo[K] } = {
      packageName: match[1] as string,
      state: STATES[stateCode] ?? `state ${stateCode}`,
      stateCode,
      active: /active=true/.test(block),
    };
    if (description !== undefined && description !== 'null') session.description = description;
    sessions.push(session);
  });
  return sessions;
}

/**
 * Whether a session takes media commands: it is active, or it has a playback state. Telecom's
 * session (the global priority session from Android 12, `active=false`, `state=null`) and sessions
 * an app created but never used do not.
 */
export function canTakeMediaCommands(session: MediaSessionInfo): boolean {
  return session.active || session.stateCode !== 0;
}
