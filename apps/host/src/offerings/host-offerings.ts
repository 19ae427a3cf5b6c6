// What a deployment offers MCP clients besides tools, composed from its parts.
import {
  isToolError,
  type OfferingChange,
  type OfferingContext,
  type ToolPackageOfferings,
  type ToolRegistry,
} from '@toolsys/core-tool-registry';
import {
  type CompletionAnswer,
  type CompletionRef,
  type OfferingCaller,
  OfferingError,
  type PromptInfo,
  type PromptResult,
  type ResourceContents,
  type ResourceInfo,
  type ResourceTemplateInfo,
  type ServerOfferings,
} from '../server/offerings.js';
import {
  ARTIFACT_TEMPLATE,
  type ArtifactSource,
  artifactPaths,
  hasArtifact,
  isArtifactUri,
  readArtifact,
} from './artifact-offering.js';
import { completionAnswer, NO_COMPLETION } from './completion-answer.js';
import { checkCompletionValue, checkPromptArguments, checkUri } from './offering-limits.js';
import { PackageOfferingSet } from './package-offering-set.js';
import {
  isRuntimeTool,
  isVisibleTool,
  renderRuntimePrompt,
  runtimePromptInfo,
  runtimePromptTools,
  schemaValues,
} from './runtime-prompts.js';
import { completeWorkspacePath } from './workspace-paths.js';

/** Argument and variable names completed with the tool ids the caller may see. */
const TOOL_ID_ARGUMENTS: ReadonlySet<string> = new Set(['tool', 'tool_id', 'toolId', 'tools']);
/** Argument and variable names completed with paths of the workspace. */
const PATH_ARGUMENTS: ReadonlySet<string> = new Set([
  'path',
  'file',
  'file_path',
  'filePath',
  'directory',
  'dir',
  'cwd',
  'source',
  'destination',
]);

/** Options for {@link HostOfferings}. */
export interface HostOfferingsOptions {
  /** The deployment's registry: its skills and shortcuts are prompts, its ids complete `tool`. */
  readonly registry: ToolRegistry;
  /** The workspace root `path` arguments complete in. */
  readonly workspaceRoot: string;
  /** The data directory and the artifacts linked so far. */
  readonly artifacts: ArtifactSource;
  /** What clients list: `discover` prompts call run-time tools through `tool_call`. Default `all`. */
  readonly toolMode?: 'all' | 'discover';
}

/**
 * The deployment's {@link ServerOfferings}: skills and shortcuts as prompts (only the caller's
 * own, when they have a definer), what packages offer ({@link ToolPackageOfferings}), artifacts
 * as the resource template `toolsys://data/{+path}` (only the caller's own), completion of
 * prompt arguments and template variables (schema values, tool ids, workspace paths, package
 * completers such as handles), and subscriptions to resources.
 */
export class HostOfferings implements ServerOfferings {
  readonly #options: HostOfferingsOptions;
  readonly #packages: PackageOfferingSet;
  readonly #listListeners = new Set<(kind: 'prompts' | 'resources') => void>();
  readonly #subscriptions = new Map<string, Set<(uri: string) => void>>();
  readonly #runtimeIds = new Set<string>();
  readonly #stopRegistry: () => void;

  constructor(options: HostOfferingsOptions) {
    this.#options = options;
    this.#packages = new PackageOfferingSet((change) => this.#onPackageChange(change));
    for (const tool of options.registry.list())
      if (isRuntimeTool(tool)) this.#runtimeIds.add(tool.id);
    // A skill installed or a shortcut defined (or removed) changes the prompt list. A tool only
    // its definer sees (`definedBy`) is always a run-time one.
    this.#stopRegistry = options.registry.onChange(({ type, id, definedBy }) => {
      if (definedBy !== undefined) {
        this.#notifyList('prompts');
        return;
      }
      const tool = type === 'unregistered' ? undefined : options.registry.get(id);
      const runtime = tool !== undefined && isRuntimeTool(tool);
      const known = this.#runtimeIds.has(id);
      if (runtime) this.#runtimeIds.add(id);
      else this.#runtimeIds.delete(id);
      if (runtime || known) this.#notifyList('prompts');
    });
  }

  /** Adds what a started package offers (at start-up, or when a late package starts). */
  addPackage(offerings: ToolPackageOfferings): void {
    this.#packages.add(offerings);
  }

  async listPrompts(caller: OfferingCaller): Promise<readonly PromptInfo[]> {
    const offered = this.#packages.prompts();
    const names = new Set(offered.map((prompt) => prompt.name));
    return [
      ...offered.map(({ name, title, description, arguments: args }) => ({
        name,
        ...(title !== undefined ? { title } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(args !== undefined ? { arguments: args } : {}),
      })),
      ...runtimePromptTools(this.#options.registry, caller.principal)
        .filter((tool) => !names.has(tool.id))
        .map(runtimePromptInfo),
    ];
  }

  async getPrompt(
    name: string,
    args: Readonly<Record<string, string>>,
    caller: OfferingCaller,
  ): Promise<PromptResult> {
    const offered = this.#packages.prompt(name);
    if (offered) {
      checkPromptArguments(name, offered.arguments ?? [], args);
      const messages = await translateErrors(() => offered.render(args, contextOf(caller)));
      return {
        ...(offered.description !== undefined ? { description: offered.description } : {}),
        messages,
      };
    }
    const tool = this.#runtimeTool(name, caller);
    if (!tool) throw promptNotFound(name);
    checkPromptArguments(name, runtimePromptInfo(tool).arguments ?? [], args);
    return renderRuntimePrompt(tool, args, this.#options.toolMode);
  }

  async listResources(caller: OfferingCaller): Promise<readonly ResourceInfo[]> {
    void caller;
    return this.#packages.resources().map(({ uri, name, title, description, mimeType }) => ({
      uri,
      name,
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(mimeType !== undefined ? { mimeType } : {}),
    }));
  }

  async listResourceTemplates(caller: OfferingCaller): Promise<readonly ResourceTemplateInfo[]> {
    void caller;
    return [
      ...this.#packages.templates().map(({ uriTemplate, name, title, description, mimeType }) => ({
        uriTemplate,
        name,
        ...(title !== undefined ? { title } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(mimeType !== undefined ? { mimeType } : {}),
      })),
      ARTIFACT_TEMPLATE,
    ];
  }

  async readResource(
    uri: string,
    caller: OfferingCaller,
  ): Promise<readonly ResourceContents[] | undefined> {
    checkUri(uri);
    if (isArtifactUri(uri)) return readArtifact(uri, this.#options.artifacts, caller);
    const context = contextOf(caller);
    const resource = this.#packages.resources().find((candidate) => candidate.uri === uri);
    if (resource) return translateErrors(async () => (await resource.read(context)) ?? undefined);
    const match = this.#packages.matchTemplate(uri);
    if (match) {
      return translateErrors(
        async () => (await match.template.read(match.variables, uri, context)) ?? undefined,
      );
    }
    return undefined;
  }

  async complete(
    ref: CompletionRef,
    argument: { readonly name: string; readonly value: string },
    context: { readonly arguments?: Readonly<Record<string, string>> },
    caller: OfferingCaller,
  ): Promise<CompletionAnswer> {
    void context;
    checkCompletionValue(argument.name, argument.value);
    const { name, value } = argument;
    if (ref.type === 'ref/prompt') {
      const offered = this.#packages.prompt(ref.name);
      if (offered) {
        if (!(offered.arguments ?? []).some((declared) => declared.name === name)) {
          return NO_COMPLETION;
        }
        if (offered.complete) {
          const values = await quietly(() => offered.complete?.(name, value, contextOf(caller)));
          return completionAnswer(values, value);
        }
        return this.#completeByName(name, value, caller);
      }
      const tool = this.#runtimeTool(ref.name, caller);
      if (!tool || !(runtimePromptInfo(tool).arguments ?? []).some((a) => a.name === name)) {
        return NO_COMPLETION;
      }
      const values = schemaValues(tool, name);
      return values ? completionAnswer(values, value) : this.#completeByName(name, value, caller);
    }
    if (ref.uri === ARTIFACT_TEMPLATE.uriTemplate) {
      return name === 'path'
        ? completionAnswer(artifactPaths(this.#options.artifacts, caller), value)
        : NO_COMPLETION;
    }
    const template = this.#packages.templates().find((item) => item.uriTemplate === ref.uri);
    if (!template) return NO_COMPLETION;
    if (template.complete) {
      const values = await quietly(() => template.complete?.(name, value, contextOf(caller)));
      return completionAnswer(values, value);
    }
    return this.#completeByName(name, value, caller);
  }

  async subscribe(
    uri: string,
    caller: OfferingCaller,
    onUpdated: (uri: string) => void,
  ): Promise<() => void> {
    checkUri(uri);
    const readable = isArtifactUri(uri)
      ? hasArtifact(uri, this.#options.artifacts, caller)
      : (await this.readResource(uri, caller)) !== undefined;
    if (!readable) {
      throw new OfferingError(
        'not_found',
        `No resource at ${JSON.stringify(uri)} for you: resources/list and resources/templates/list show what there is.`,
      );
    }
    let listeners = this.#subscriptions.get(uri);
    if (!listeners) {
      listeners = new Set();
      this.#subscriptions.set(uri, listeners);
    }
    // Each subscription is its own entry, so the same function subscribed twice stops once per call.
    const entry = (updated: string) => onUpdated(updated);
    listeners.add(entry);
    return () => {
      const current = this.#subscriptions.get(uri);
      current?.delete(entry);
      if (current?.size === 0) this.#subscriptions.delete(uri);
    };
  }

  onListChanged(listener: (kind: 'prompts' | 'resources') => void): () => void {
    const entry = (kind: 'prompts' | 'resources') => listener(kind);
    this.#listListeners.add(entry);
    return () => this.#listListeners.delete(entry);
  }

  /** Stops listening to the registry and the packages; subscriptions end. */
  close(): void {
    this.#stopRegistry();
    this.#packages.close();
    this.#subscriptions.clear();
    this.#listListeners.clear();
  }

  /** The run-time tool (skill or shortcut) named `name`, when `caller` may see it. */
  #runtimeTool(name: string, caller: OfferingCaller) {
    const tool = this.#options.registry.get(name, caller.principal);
    return tool && isRuntimeTool(tool) && isVisibleTool(tool, caller.principal) ? tool : undefined;
  }

  /** Completes an argument by its name: package completers, then tool ids and workspace paths. */
  async #completeByName(
    name: string,
    value: string,
    caller: OfferingCaller,
  ): Promise<CompletionAnswer> {
    const completers = this.#packages.completers(name);
    if (completers.length > 0) {
      const values: string[] = [];
      for (const completer of completers) {
        values.push(...(await quietly(() => completer.complete(value, contextOf(caller)))));
      }
      return completionAnswer(values, value);
    }
    if (TOOL_ID_ARGUMENTS.has(name)) {
      const ids = this.#options.registry.ids(caller.principal);
      return completionAnswer(ids, value);
    }
    if (PATH_ARGUMENTS.has(name)) {
      return completionAnswer(
        await completeWorkspacePath(this.#options.workspaceRoot, value),
        value,
      );
    }
    return NO_COMPLETION;
  }

  #onPackageChange(change: OfferingChange): void {
    if (change.kind !== 'updated') {
      this.#notifyList(change.kind);
      return;
    }
    for (const listener of [...(this.#subscriptions.get(change.uri) ?? [])]) {
      try {
        listener(change.uri);
      } catch {
        // One subscriber's failure does not keep the others from hearing.
      }
    }
  }

  #notifyList(kind: 'prompts' | 'resources'): void {
    for (const listener of [...this.#listListeners]) {
      try {
        listener(kind);
      } catch {
        // One listener's failure does not keep the others from hearing.
      }
    }
  }
}

function contextOf(caller: OfferingCaller): OfferingContext {
  return {
    principal: caller.principal,
    sessionId: caller.sessionId,
    ...(caller.requestInput ? { requestInput: caller.requestInput } : {}),
  };
}

function promptNotFound(name: string): OfferingError {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return new OfferingError(
    'not_found',
    `No prompt named ${JSON.stringify(shown)}: prompts/list shows the prompts you can get.`,
  );
}

/** Runs a package's code: its INVALID_ARGUMENT and NOT_FOUND tool errors become offering errors. */
async function translateErrors<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isToolError(error) && error.code === 'INVALID_ARGUMENT') {
      throw new OfferingError('invalid_params', error.message);
    }
    if (isToolError(error) && error.code === 'NOT_FOUND') {
      throw new OfferingError('not_found', error.message);
    }
    throw error;
  }
}

/** A package's completion values; a completer that fails completes to nothing. */
async function quietly(
  run: () => Promise<readonly string[]> | readonly string[] | undefined,
): Promise<readonly string[]> {
  try {
    const values = await run();
    return Array.isArray(values) ? values.filter((item) => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
