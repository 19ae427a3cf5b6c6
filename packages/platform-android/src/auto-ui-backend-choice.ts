import { AppiumUnavailableError } from './appium/appium-ui-backend.js';
import { AdbUiBackend, type UiBackend, UiBackendChoice, type UiBackendRun } from './ui-backend.js';

/** Options for {@link AutoUiBackendChoice}. */
export interface AutoUiBackendChoiceOptions {
  /**
   * Looks for Appium: the backend to use, or a sentence saying why there is none (no server
   * answers, nothing installed to start). Called on first use and again after each back-off.
   */
  probe: () => Promise<UiBackend | string>;
  /** How long adb is used after Appium was found missing or unusable, in ms. Default 60000. */
  retryAfterMs?: number;
  /** The clock, in ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * `ui: "auto"`: Appium while it is usable, adb otherwise. A call whose Appium backend fails with
 * {@link AppiumUnavailableError} runs again through adb (once more through Appium first when the
 * request provably never ran, as a restarted server may take it), its result carries a note, and
 * adb is used until the back-off ends; then Appium is looked for and tried again. Ordinary tool
 * errors (a refused command, an element not found) are never retried.
 */
export class AutoUiBackendChoice extends UiBackendChoice {
  readonly #options: AutoUiBackendChoiceOptions;
  readonly #adb = new AdbUiBackend();
  #appium: UiBackend | undefined;
  #probing: Promise<UiBackend | string> | undefined;
  /** Until when (clock ms) adb is used without trying Appium. */
  #adbUntil = 0;

  constructor(options: AutoUiBackendChoiceOptions) {
    super(async () => this.#adb);
    this.#options = options;
  }

  get #retryAfterMs(): number {
    return this.#options.retryAfterMs ?? 60_000;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** The backend for the next call: Appium when found and not backed off from, else adb. */
  override async get(): Promise<UiBackend> {
    if (this.#now() < this.#adbUntil) return this.#adb;
    if (this.#appium) return this.#appium;
    this.#probing ??= this.#options.probe().finally(() => {
      this.#probing = undefined;
    });
    const found = await this.#probing;
    if (typeof found === 'string') {
      this.#adbUntil = this.#now() + this.#retryAfterMs;
      return this.#adb;
    }
    this.#appium = found;
    return found;
  }

  override async run<T>(call: (backend: UiBackend) => Promise<T>): Promise<UiBackendRun<T>> {
    const backend = await this.get();
    if (backend === this.#adb) return { value: await call(backend), backend: backend.name };
    let failure: AppiumUnavailableError;
    try {
      return { value: await call(backend), backend: backend.name };
    } catch (error) {
      if (!(error instanceof AppiumUnavailableError)) throw error;
      failure = error;
    }
    if (failure.notRun) {
      // The session or server went away before the request ran: a new one may take it now.
      try {
        return { value: await call(backend), backend: backend.name };
      } catch (error) {
        if (!(error instanceof AppiumUnavailableError)) throw error;
        failure = error;
      }
    }
    this.#adbUntil = this.#now() + this.#retryAfterMs;
    const value = await call(this.#adb);
    return {
      value,
      backend: this.#adb.name,
      note: `Appium is not usable now (${failure.message.replace(/\.$/, '')}), so this ran through adb; Appium is tried again after ${Math.round(this.#retryAfterMs / 1000)} s.`,
    };
  }

  override async dispose(): Promise<void> {
    const appium = this.#appium;
    this.#appium = undefined;
    this.#adbUntil = 0;
    await appium?.dispose();
  }
}
