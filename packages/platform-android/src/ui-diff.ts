import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import type { UiSnapshot } from './android-session.js';
import {
  flattenNodes,
  isEditable,
  isInformative,
  isKeyboardWindow,
  type UiNode,
} from './ui-hierarchy.js';

/** How the screen differs between two snapshots. */
export interface ScreenChange {
  /** Whether anything the model can see changed. */
  readonly changed: boolean;
  /** Foreground activity before and after, when it changed. */
  readonly activity?: { readonly from?: string; readonly to?: string };
  /** Keyboard shown before and after, when it changed. */
  readonly keyboard?: { readonly from: boolean; readonly to: boolean };
  /** Short descriptions of nodes that appeared / disappeared (at most 8 each). */
  readonly appeared: string[];
  readonly disappeared: string[];
  readonly appearedCount: number;
  readonly disappearedCount: number;
  /** Nodes whose text or checked state changed (same node). */
  readonly updated: string[];
}

function label(node: UiNode): string {
  const name = node.className.slice(node.className.lastIndexOf('.') + 1);
  const text =
    node.text || node.contentDesc || node.resourceId.slice(node.resourceId.indexOf('/') + 1);
  return `${node.ref ? `[${node.ref}] ` : ''}${name}${text ? ` "${cleanUntrustedLine(text, 40)}"` : ''}`;
}

function visible(snapshot: UiSnapshot): Map<string, UiNode> {
  const nodes = new Map<string, UiNode>();
  for (const node of flattenNodes(snapshot.roots.filter((root) => !isKeyboardWindow(root)))) {
    if (isInformative(node)) nodes.set(node.key, node);
  }
  return nodes;
}

function keyboardUp(snapshot: UiSnapshot): boolean {
  return snapshot.telemetry.keyboardShown ?? snapshot.roots.some(isKeyboardWindow);
}

/** Compares two snapshots of the same device. */
export function diffScreens(before: UiSnapshot, after: UiSnapshot): ScreenChange {
  const was = visible(before);
  const now = visible(after);
  const appeared = [...now.values()].filter((node) => !was.has(node.key));
  const disappeared = [...was.values()].filter((node) => !now.has(node.key));
  const updated: string[] = [];
  for (const [key, node] of now) {
    const old = was.get(key);
    if (!old) continue;
    if (old.text !== node.text && !node.password)
      updated.push(
        `${label(node)} text "${cleanUntrustedLine(old.text, 200)}" → "${cleanUntrustedLine(node.text, 200)}"`,
      );
    else if (old.text !== node.text) updated.push(`${label(node)} text changed (password field)`);
    if (old.checked !== node.checked)
      updated.push(`${label(node)} ${node.checked ? 'checked' : 'unchecked'}`);
    if (old.focused !== node.focused && isEditable(node))
      updated.push(`${label(node)} ${node.focused ? 'focused' : 'lost focus'}`);
  }
  const fromActivity =
    before.telemetry.foreground?.activity ?? before.telemetry.foreground?.packageName;
  const toActivity =
    after.telemetry.foreground?.activity ?? after.telemetry.foreground?.packageName;
  const keyboardBefore = keyboardUp(before);
  const keyboardAfter = keyboardUp(after);
  const change: { -readonly [K in keyof ScreenChange]: ScreenChange[K] } = {
    changed: false,
    appeared: appeared.slice(0, 8).map(label),
    disappeared: disappeared.slice(0, 8).map(label),
    appearedCount: appeared.length,
    disappearedCount: disappeared.length,
    updated: updated.slice(0, 8),
  };
  if (fromActivity !== toActivity) {
    change.activity = {
      ...(fromActivity === undefined ? {} : { from: fromActivity }),
      ...(toActivity === undefined ? {} : { to: toActivity }),
    };
  }
  if (keyboardBefore !== keyboardAfter)
    change.keyboard = { from: keyboardBefore, to: keyboardAfter };
  change.changed =
    change.activity !== undefined ||
    change.keyboard !== undefined ||
    appeared.length > 0 ||
    disappeared.length > 0 ||
    updated.length > 0;
  return change;
}

/** One paragraph describing a change for the model. */
export function describeChange(change: ScreenChange): string {
  if (!change.changed) return 'The screen did not change.';
  const parts: string[] = [];
  if (change.activity)
    parts.push(
      `Foreground changed: ${change.activity.from ?? '?'} → ${change.activity.to ?? '?'}.`,
    );
  if (change.keyboard)
    parts.push(change.keyboard.to ? 'The keyboard is now shown.' : 'The keyboard was hidden.');
  if (change.updated.length > 0) parts.push(`Updated: ${change.updated.join('; ')}.`);
  if (change.appearedCount > 0)
    parts.push(
      `${change.appearedCount} node(s) appeared: ${change.appeared.join(', ')}${change.appearedCount > change.appeared.length ? ', …' : ''}.`,
    );
  if (change.disappearedCount > 0)
    parts.push(
      `${change.disappearedCount} node(s) disappeared: ${change.disappeared.join(', ')}${change.disappearedCount > change.disappeared.length ? ', …' : ''}.`,
    );
  return parts.join(' ');
}
