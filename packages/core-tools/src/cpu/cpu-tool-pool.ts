// The CPU tool pool of @toolsys/platform, preconfigured with the core tools that run in it.
import {
  type CpuToolSet,
  CpuToolPool as PlatformCpuToolPool,
  type CpuToolPoolOptions as PlatformCpuToolPoolOptions,
} from '@toolsys/platform';
import { CPU_TOOL_IDS, runsInline } from './cpu-tool-definitions.js';

export { offloadCpuTools } from '@toolsys/platform';

/**
 * The core tools the pool runs ({@link CPU_TOOL_IDS}, plus the HTML conversion of `web_fetch`).
 * Workers import `cpu-tool-definitions` beside this file: the `.ts` source when the package runs
 * from its sources (the pool's source worker registers the TypeScript loader), else the built `.js`.
 */
export const CORE_CPU_TOOLS: CpuToolSet = {
  workerModule: new URL(
    `./cpu-tool-definitions.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
    import.meta.url,
  ).href,
  toolIds: CPU_TOOL_IDS,
  runsInline,
};

/** Options for the core tools' {@link CpuToolPool}: those of the platform pool but the tool set. */
export type CpuToolPoolOptions = Omit<PlatformCpuToolPoolOptions, 'tools'>;

/**
 * The platform's CPU tool pool running the core tools' CPU-bound tools (calculate, regex,
 * json_path, json_transform, csv_query, xml_extract, text_diff …) and `web_fetch`'s page
 * conversion. Call `close()` when the tools are disposed.
 */
export class CpuToolPool extends PlatformCpuToolPool {
  constructor(options: CpuToolPoolOptions = {}) {
    super({ ...options, tools: CORE_CPU_TOOLS });
  }
}
