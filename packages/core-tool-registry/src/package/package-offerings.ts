import type { CallPrincipal, InputRequest, InputResponse } from '../contract/tool.js';

/**
 * What a package offers MCP clients besides tools: prompts with arguments, resources, resource
 * templates and completion of arguments. All optional; the host lists them beside its own
 * (skills, shortcuts, artifacts) and asks them only for the caller it serves. The shapes are the
 * protocol's JSON, free of any SDK type.
 */
export interface ToolPackageOfferings {
  /** Prompts, in the order they are listed. Names must be unique across the deployment. */
  readonly prompts?: readonly OfferedPrompt[];
  /** Resources with a fixed URI, in the order they are listed. */
  readonly resources?: readonly OfferedResource[];
  /** Resource templates (RFC 6570 level 1 `{name}` variables), in the order they are listed. */
  readonly resourceTemplates?: readonly OfferedResourceTemplate[];
  /**
   * Completers of arguments by name, used for any prompt argument or template variable of that
   * name that has no completion of its own (a package's handles: `session_id`, `tab_id` …).
   */
  readonly completers?: readonly OfferedCompleter[];
  /**
   * Tells the host when the lists changed (`prompts`, `resources`) or one resource's contents
   * did (`updated` with its URI). Returns how to stop listening.
   */
  onChange?(listener: (change: OfferingChange) => void): () => void;
}

/** A change a package reports through {@link ToolPackageOfferings.onChange}. */
export type OfferingChange =
  | { readonly kind: 'prompts' | 'resources' }
  | { readonly kind: 'updated'; readonly uri: string };

/** Who asks: every offering answers only for this caller. */
export interface OfferingContext {
  /** The caller's principal (`local` on stdio and tokenless loopback). */
  readonly principal: CallPrincipal;
  /** The caller's client session. */
  readonly sessionId: string;
  /**
   * Asks the caller's client for input while a prompt renders (as `ToolContext.requestInput`);
   * absent when it cannot answer. Ask before anything else: over 2026-07-28 the prompt is
   * rendered again with the answers.
   */
  readonly requestInput?: (request: InputRequest) => Promise<InputResponse>;
}

/** A content block of a prompt message, as the protocol writes it. */
export type OfferedContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource'; readonly resource: OfferedResourceContents };

/** One message of a rendered prompt. */
export interface OfferedPromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: OfferedContent;
}

/** One argument of a prompt (always a string on the wire). */
export interface OfferedPromptArgument {
  readonly name: string;
  /** What to pass, written for the model or the person choosing the prompt. */
  readonly description?: string;
  readonly required?: boolean;
}

/** A prompt: named arguments in, messages out. */
export interface OfferedPrompt {
  /** Unique name (`prompts/get` names it). */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly OfferedPromptArgument[];
  /**
   * Renders the messages. The host has already checked that every required argument is there,
   * that no unknown one is, and their sizes. A bad value is refused by throwing a `ToolError`
   * `INVALID_ARGUMENT` whose message names the argument.
   */
  render(
    args: Readonly<Record<string, string>>,
    context: OfferingContext,
  ): Promise<readonly OfferedPromptMessage[]> | readonly OfferedPromptMessage[];
  /** Values for one argument starting with `value`, best first (the host trims to 100). */
  complete?(
    argument: string,
    value: string,
    context: OfferingContext,
  ): Promise<readonly string[]> | readonly string[];
}

/** One resource's contents: text or base64 `blob`. */
export interface OfferedResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  readonly blob?: string;
}

/** A resource with a fixed URI. */
export interface OfferedResource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** Its contents for `context`; undefined when this caller has none (answered as not found). */
  read(
    context: OfferingContext,
  ):
    | Promise<readonly OfferedResourceContents[] | undefined>
    | readonly OfferedResourceContents[]
    | undefined;
}

/** A family of resources whose URIs fill variables into a template (`test://item/{id}`). */
export interface OfferedResourceTemplate {
  /** RFC 6570 level 1: `{name}` matches one path segment; `{+name}` matches the rest. */
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /**
   * Contents of the resource at `uri`, whose variables matched as `variables` (decoded);
   * undefined when there is none for `context`.
   */
  read(
    variables: Readonly<Record<string, string>>,
    uri: string,
    context: OfferingContext,
  ):
    | Promise<readonly OfferedResourceContents[] | undefined>
    | readonly OfferedResourceContents[]
    | undefined;
  /** Values for one variable starting with `value`, best first (the host trims to 100). */
  complete?(
    variable: string,
    value: string,
    context: OfferingContext,
  ): Promise<readonly string[]> | readonly string[];
}

/** Completes every argument or template variable named `argument` (see {@link ToolPackageOfferings.completers}). */
export interface OfferedCompleter {
  /** The argument name it completes (`session_id`). */
  readonly argument: string;
  /** Values starting with `value` that `context` may use (never another principal's), best first. */
  complete(value: string, context: OfferingContext): Promise<readonly string[]> | readonly string[];
}
