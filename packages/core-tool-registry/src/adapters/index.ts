/**
 * Provider adapters: a registry's tools in the OpenAI, Anthropic and Vercel AI SDK formats, the
 * reversible provider-safe names they use, and how a result's artifacts are rendered for a model.
 * Published as `@toolsys/core-tool-registry/adapters`; each provider also has its own subpath.
 */
export {
  type AdapterCallOptions,
  type AdapterOptions,
  type AdapterToolset,
  createAdapterToolset,
} from './adapter-tools.js';
export {
  DEFAULT_INLINE_IMAGE_BYTES,
  type InlineImage,
  readInlineImages,
  renderForModel,
} from './artifact-output.js';
export {
  PROVIDER_NAME_MAX_LENGTH,
  ProviderNameCollisionError,
  ProviderNames,
  type ProviderNamesOptions,
} from './provider-names.js';
