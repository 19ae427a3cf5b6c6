import type { TaskPatch, ToolEvent } from '@toolsys/core-tool-registry';

/** Writes a task's progress at most every 500 ms (the last one always). */
export class ProgressWriter {
  readonly #write: (patch: TaskPatch) => Promise<unknown>;
  #pending: TaskPatch | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(write: (patch: TaskPatch) => Promise<unknown>) {
    this.#write = write;
  }

  take(event: ToolEvent): void {
    if (this.#stopped || event.type !== 'progress') return;
    this.#pending = {
      progress: event,
      ...(event.message !== undefined ? { statusMessage: event.message.slice(0, 500) } : {}),
    };
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      const patch = this.#pending;
      this.#pending = undefined;
      if (patch && !this.#stopped) void this.#write(patch);
    }, 500);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }
}
