// The group helper of every browser tool: settings, the session around each call, how errors
// and oversized results reach the model, and the tab a call acts on.
import {
  cancelledFailure,
  defineTool,
  failureResult,
  handleArgument,
  handleOwnerOf,
  isToolError,
  type ToolContext,
  type ToolDefinition,
  ToolErrorCode,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import { scrubToolReturn } from '@toolsys/core-tool-registry/text';
import type { SsrfGuard } from '@toolsys/platform';
import { z } from 'zod';
import type { BrowserManager } from '../browser-manager.js';
import type { BrowserSession } from '../browser-session.js';
import { type BrowserTab, READ_TIMEOUT_MS } from '../browser-tab.js';
import type { HostPolicy } from '../host-policy.js';
import { cleanPageLine, scrubSecrets, WEB_PAGE_MARKERS, withWebPageNotice } from '../page-text.js';

/** What every browser tool is built with. */
export interface BrowserToolsOptions {
  /** The deployment's browser. */
  readonly manager: BrowserManager;
  /** Checks navigation targets (scheme, private and metadata addresses). */
  readonly ssrfGuard: SsrfGuard;
  /** The deployment's host allow / block list for navigation targets. */
  readonly hostPolicy?: HostPolicy;
  /** Directory file uploads are confined to (absolute). */
  readonly workspaceRoot: string;
  /** Directory screenshots, dumps and long snapshots are written to (absolute). */
  readonly artifactsDir: string;
  /**
   * Default token budget of a snapshot result, in real (o200k) tokens of everything the model
   * reads: the page's lines, the tab line, title, notes, markers and notice. Default 6,000.
   */
  readonly maxTokens?: number;
  /** Token budget (real tokens) of the result of an action that reports changes. Default 1,500. */
  readonly deltaMaxTokens?: number;
  /** Longest wait for an element to become actionable, in ms. Default 10,000. */
  readonly actionTimeoutMs?: number;
  /** Longest wait for a page load, in ms. Default 30,000. */
  readonly navigationTimeoutMs?: number;
  /**
   * Longest read of a page's accessibility tree by browser_snapshot, in ms; a page whose script
   * is busy ends the call there with TIMEOUT. Default 25,000.
   */
  readonly readTimeoutMs?: number;
  /**
   * Secret values (API keys, passwords) replaced by `[redacted]` in every result, wherever a page
   * shows them. Values shorter than 4 characters are ignored.
   */
  readonly redact?: readonly string[];
}

/** Resolved settings shared by the tool groups. */
export interface BrowserToolSettings extends BrowserToolsOptions {
  readonly maxTokens: number;
  readonly deltaMaxTokens: number;
  readonly actionTimeoutMs: number;
  readonly navigationTimeoutMs: number;
  readonly readTimeoutMs: number;
}

/** What a browser handler receives besides its arguments. */
export interface BrowserCall {
  readonly session: BrowserSession;
  readonly context: ToolContext;
  readonly settings: BrowserToolSettings;
  /** Notes from the browser lifecycle that must reach the model (restart after a crash). */
  readonly notes: readonly string[];
}

/** Fills in the defaults of {@link BrowserToolsOptions}. */
export function resolveSettings(options: BrowserToolsOptions): BrowserToolSettings {
  return {
    ...options,
    maxTokens: options.maxTokens ?? 6_000,
    deltaMaxTokens: options.deltaMaxTokens ?? 1_500,
    actionTimeoutMs: options.actionTimeoutMs ?? 10_000,
    navigationTimeoutMs: options.navigationTimeoutMs ?? 30_000,
    readTimeoutMs: options.readTimeoutMs ?? READ_TIMEOUT_MS,
  };
}

/**
 * Declares a browser tool: the handler runs with the session's browser state (launched on
 * demand), expected failures thrown as ToolErrors become results, and Playwright's errors are
 * translated into codes and next steps the model can act on.
 */
export function defineBrowserTool<TArgs>(
  settings: BrowserToolSettings,
  definition: Omit<ToolDefinition<TArgs>, 'execute'> & {
    run(args: TArgs, call: BrowserCall): Promise<ToolReturn>;
  },
): ToolDefinition<TArgs> {
  const { run, ...rest } = definition;
  return defineTool({
    ...rest,
    async execute(args, context) {
      if (context.signal.aborted) return cancelledFailure(context.signal);
      let stop: (() => void) | undefined;
      // A cancelled or timed-out call answers at once; the browser work behind it is bounded by
      // the action and navigation time limits.
      const cancelled = new Promise<ToolReturn>((resolve) => {
        stop = () => resolve(cancelledFailure(context.signal));
        context.signal.addEventListener('abort', stop, { once: true });
      });
      const work = settings.manager
        .withSession(handleOwnerOf(context), async ({ session, notes }) => {
          // What the session records from now on is redacted before it is kept or cut.
          session.secrets = settings.redact ?? [];
          return prependNotes(await run(args, { session, context, settings, notes }), notes);
        })
        .catch(translateError);
      try {
        const result = redactSecrets(await Promise.race([work, cancelled]), settings.redact ?? []);
        return addWebPageNotice(capResult(result));
      } finally {
        if (stop) context.signal.removeEventListener('abort', stop);
      }
    },
  });
}

export { scrubSecrets };

/**
 * Most characters of one result's text. Snapshots keep their own token budget far below it; this
 * bounds any other list a page can fill.
 */
export const MAX_RESULT_CHARS = 200_000;

/** Cuts a result's text at {@link MAX_RESULT_CHARS}, at a line break, closing an open block. */
function capResult(result: ToolReturn): ToolReturn {
  const content = typeof result === 'string' ? result : result.ok ? result.content : undefined;
  if (content === undefined || content.length <= MAX_RESULT_CHARS) return result;
  let kept = content.slice(0, MAX_RESULT_CHARS);
  const lastBreak = kept.lastIndexOf('\n');
  if (lastBreak > 0) kept = kept.slice(0, lastBreak);
  const opened = kept.split(WEB_PAGE_MARKERS.open).length - 1;
  const closed = kept.split(WEB_PAGE_MARKERS.close).length - 1;
  if (opened > closed) kept += `\n${WEB_PAGE_MARKERS.close}`;
  kept += `\n[result cut at ${MAX_RESULT_CHARS.toLocaleString('en-US')} characters; ${(content.length - kept.length).toLocaleString('en-US')} more not shown]`;
  if (typeof result === 'string' || !result.ok) return kept;
  return { ...result, content: kept };
}

/**
 * Puts the web-page notice once in a result whose text holds page content between markers; not
 * in a later page of a snapshot that continues a page read before (`continued` in its data),
 * whose first page had it.
 */
function addWebPageNotice(result: ToolReturn): ToolReturn {
  if (typeof result === 'string') return withWebPageNotice(result);
  if (!result.ok) return result;
  const data = result.data as { readonly continued?: unknown } | undefined;
  if (data?.continued === true) return result;
  return { ...result, content: withWebPageNotice(result.content) };
}

/**
 * Replaces every secret in a result (text, message, data, artifact descriptions) by
 * `[redacted]`; artifact paths are kept.
 */
export function redactSecrets(result: ToolReturn, secrets: readonly string[]): ToolReturn {
  return scrubToolReturn(result, secrets);
}

function prependNotes(result: ToolReturn, notes: readonly string[]): ToolReturn {
  if (notes.length === 0) return result;
  const prefix = `${notes.join('\n')}\n`;
  if (typeof result === 'string') return `${prefix}${result}`;
  if (result.ok) return { ...result, content: `${prefix}${result.content}` };
  return {
    ...result,
    error: { ...result.error, message: `${result.error.message} (${notes.join(' ')})` },
  };
}

const CLOSED = /Target (page, context or browser )?(has been )?closed|Browser has been closed/i;

/** Whether an error says the page, its context or the browser closed under the call. */
export function isClosedError(error: unknown): boolean {
  return CLOSED.test(error instanceof Error ? error.message : String(error));
}

/**
 * Whether the tab's page is closed, or closes within `withinMs`: a page that closes itself
 * (`window.close()` in a click handler) races the steps that follow the action.
 */
export async function closesSoon(tab: BrowserTab, withinMs = 1_000): Promise<boolean> {
  if (tab.page.isClosed()) return true;
  return await new Promise<boolean>((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      tab.page.off('close', onClose);
      resolve(tab.page.isClosed());
    }, withinMs);
    tab.page.once('close', onClose);
  });
}

/** Turns a thrown error into a failure result the model can act on. */
export function translateError(error: unknown): ToolReturn {
  if (isToolError(error)) {
    const { cause: _cause, ...options } = error.options;
    return failureResult(error.code, error.message, options);
  }
  const message = error instanceof Error ? error.message : String(error);
  // A message can carry page text (an error the page threw): one cleaned line, never more.
  const first = cleanPageLine((message.split('\n')[0] ?? message).replace(/^[\w.]+:\s*/, ''));
  if (error instanceof Error && error.name === 'TimeoutError') {
    return failureResult(ToolErrorCode.TIMEOUT, `the browser did not finish in time: ${first}`, {
      hint: 'Take a browser_snapshot to see the page state; the element may be hidden, covered or disabled. Retry once, or pick another element.',
    });
  }
  if (isClosedError(error)) {
    return failureResult(ToolErrorCode.EXECUTION_FAILED, `the tab or browser closed: ${first}`, {
      hint: 'browser_show lists the open tabs and browser_navigate opens a page; if the browser itself stopped, the next call starts a new one (page state is lost).',
    });
  }
  if (/net::ERR_/.test(message)) {
    const code = /net::ERR_[A-Z_]+/.exec(message)?.[0] ?? 'net::ERR';
    return failureResult(ToolErrorCode.EXECUTION_FAILED, `the page could not be loaded: ${code}`, {
      hint: 'Check the URL (host, port, scheme); the server may be down. Retry once.',
      details: { netError: code },
    });
  }
  return failureResult(ToolErrorCode.EXECUTION_FAILED, first, {
    hint: 'Take a browser_snapshot to see the page state, then adjust and retry once.',
  });
}

/** Schema field shared by the tools that act on a tab. */
export const tabField = handleArgument('Tab id.')
  .optional()
  .describe('Tab id; default the active tab.');

/** Schema field shared by the tools that show a page: the token budget of the result. */
export const maxTokensField = z
  .number()
  .int()
  .min(200)
  .max(50_000)
  .optional()
  .describe('Result token budget.');

/** The tab a call names, or the active one. */
export async function pickTab(
  session: BrowserSession,
  tabId: string | undefined,
): Promise<BrowserTab> {
  return tabId === undefined ? session.activeTab() : session.findTab(tabId);
}

/**
 * Makes sure every ref of a tab resolves: takes a snapshot when the tab has none, and reads the
 * tree again (keeping the last snapshot as the delta's base) after an action's target check.
 */
export async function ensureSnapshot(
  tab: BrowserTab,
  settings: BrowserToolSettings,
): Promise<void> {
  if (!tab.lastSnapshot) tab.lastSnapshot = await tab.snapshot(settings.redact);
  else if (tab.isNarrowed) await tab.snapshot(settings.redact);
}
