import type { InputRequest, InputResponse } from '@toolsys/core-tool-registry';
import type { Principal } from './principal.js';

/**
 * What a deployment offers MCP clients besides tools: prompts (skills, shortcuts and whatever a
 * package has to offer), resources and resource templates, completion of their arguments, and
 * resource subscriptions. The shapes are the protocol's JSON, free of any SDK type, so both
 * protocol eras and every transport serve the same answers.
 */
export interface ServerOfferings {
  /** The prompts `caller` may see, in a stable order. */
  listPrompts(caller: OfferingCaller): Promise<readonly PromptInfo[]>;
  /**
   * One prompt rendered with `args`. Throws {@link OfferingError} `not_found` for a prompt the
   * caller cannot see and `invalid_params` for a missing or bad argument.
   */
  getPrompt(
    name: string,
    args: Readonly<Record<string, string>>,
    caller: OfferingCaller,
  ): Promise<PromptResult>;
  /** Resources `caller` may list (the server adds the artifacts its calls linked). */
  listResources(caller: OfferingCaller): Promise<readonly ResourceInfo[]>;
  /** Resource templates `caller` may use, in a stable order. */
  listResourceTemplates(caller: OfferingCaller): Promise<readonly ResourceTemplateInfo[]>;
  /** A resource's contents, or undefined when `caller` has none at `uri` (the protocol's "not found"). */
  readResource(
    uri: string,
    caller: OfferingCaller,
  ): Promise<readonly ResourceContents[] | undefined>;
  /**
   * Completion values for one argument of a prompt or a resource template, at most 100, only
   * what `caller` may use. An unknown reference answers no values.
   */
  complete(
    ref: CompletionRef,
    argument: { readonly name: string; readonly value: string },
    context: { readonly arguments?: Readonly<Record<string, string>> },
    caller: OfferingCaller,
  ): Promise<CompletionAnswer>;
  /**
   * Calls `onUpdated(uri)` whenever the resource at `uri` changes, until the returned function is
   * called. Throws {@link OfferingError} `not_found` when `caller` cannot read `uri`.
   */
  subscribe(
    uri: string,
    caller: OfferingCaller,
    onUpdated: (uri: string) => void,
  ): Promise<() => void>;
  /** Calls `listener` when the prompt or resource list may have changed; returns how to stop. */
  onListChanged(listener: (kind: 'prompts' | 'resources') => void): () => void;
}

/** Who asks: the principal owns what it may see; the session is the caller's own. */
export interface OfferingCaller {
  readonly principal: Principal;
  readonly sessionId: string;
  /**
   * How this caller's client answers input requests (elicitation, sampling, roots) while a prompt
   * renders, as `ToolContext.requestInput` does for tools; absent when it cannot answer.
   */
  readonly requestInput?: (request: InputRequest) => Promise<InputResponse>;
}

/** Why an offering refused a request. */
export class OfferingError extends Error {
  readonly code: 'not_found' | 'invalid_params';
  constructor(code: 'not_found' | 'invalid_params', message: string) {
    super(message);
    this.name = 'OfferingError';
    this.code = code;
  }
}

/** A prompt as `prompts/list` shows it. */
export interface PromptInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly {
    readonly name: string;
    readonly description?: string;
    readonly required?: boolean;
  }[];
}

/** A content block of a prompt message or a resource, as the protocol writes it. */
export type OfferingContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource'; readonly resource: ResourceContents };

/** What `prompts/get` answers. */
export interface PromptResult {
  readonly description?: string;
  readonly messages: readonly {
    readonly role: 'user' | 'assistant';
    readonly content: OfferingContent;
  }[];
}

/** A resource as `resources/list` shows it. */
export interface ResourceInfo {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** A resource template as `resources/templates/list` shows it. */
export interface ResourceTemplateInfo {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** One resource's contents: text or base64 `blob`. */
export interface ResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  readonly blob?: string;
}

/** What a completion request completes an argument of. */
export type CompletionRef =
  | { readonly type: 'ref/prompt'; readonly name: string }
  | { readonly type: 'ref/resource'; readonly uri: string };

/** What `completion/complete` answers. */
export interface CompletionAnswer {
  readonly values: readonly string[];
  readonly total?: number;
  readonly hasMore?: boolean;
}

/** A deployment that offers nothing but tools. */
export const NO_OFFERINGS: ServerOfferings = Object.freeze({
  listPrompts: async () => [],
  getPrompt: async (name: string) => {
    throw new OfferingError('not_found', `No prompt named ${JSON.stringify(name)}.`);
  },
  listResources: async () => [],
  listResourceTemplates: async () => [],
  readResource: async () => undefined,
  complete: async () => ({ values: [] }),
  subscribe: async (uri: string) => {
    throw new OfferingError('not_found', `No resource at ${JSON.stringify(uri)}.`);
  },
  onListChanged: () => () => {},
});
