// The offerings of the deployment's packages (ToolPackageOfferings), looked up by name and URI.
import type {
  OfferedCompleter,
  OfferedPrompt,
  OfferedResource,
  OfferedResourceTemplate,
  OfferingChange,
  ToolPackageOfferings,
} from '@toolsys/core-tool-registry';
import { matchUriTemplate } from './uri-template.js';

/** A template whose pattern matched a URI, with the variables it took. */
export interface TemplateMatch {
  readonly template: OfferedResourceTemplate;
  readonly variables: Record<string, string>;
}

/**
 * The offerings of every package that is on, in the order the packages started. Where two
 * packages offer the same prompt name, resource URI or template, the first one's is used.
 */
export class PackageOfferingSet {
  readonly #packages: ToolPackageOfferings[] = [];
  readonly #stops: Array<() => void> = [];
  readonly #onChange: (change: OfferingChange) => void;

  /** @param onChange Told when a package's lists or resources changed, and when a package joins. */
  constructor(onChange: (change: OfferingChange) => void) {
    this.#onChange = onChange;
  }

  /** Adds a package's offerings (a package started, perhaps late): the lists changed. */
  add(offerings: ToolPackageOfferings): void {
    this.#packages.push(offerings);
    const stop = offerings.onChange?.((change) => this.#onChange(change));
    if (stop) this.#stops.push(stop);
    if ((offerings.prompts?.length ?? 0) > 0) this.#onChange({ kind: 'prompts' });
    if ((offerings.resources?.length ?? 0) + (offerings.resourceTemplates?.length ?? 0) > 0) {
      this.#onChange({ kind: 'resources' });
    }
  }

  /** Every package's prompts, first-come by name. */
  prompts(): OfferedPrompt[] {
    return firstByKey(
      this.#packages.flatMap((offerings) => offerings.prompts ?? []),
      (prompt) => prompt.name,
    );
  }

  /** The prompt named `name`, if a package offers one. */
  prompt(name: string): OfferedPrompt | undefined {
    return this.prompts().find((prompt) => prompt.name === name);
  }

  /** Every package's fixed resources, first-come by URI. */
  resources(): OfferedResource[] {
    return firstByKey(
      this.#packages.flatMap((offerings) => offerings.resources ?? []),
      (resource) => resource.uri,
    );
  }

  /** Every package's resource templates, first-come by template. */
  templates(): OfferedResourceTemplate[] {
    return firstByKey(
      this.#packages.flatMap((offerings) => offerings.resourceTemplates ?? []),
      (template) => template.uriTemplate,
    );
  }

  /** The first template `uri` fits, with its variables. */
  matchTemplate(uri: string): TemplateMatch | undefined {
    for (const template of this.templates()) {
      const variables = matchUriTemplate(template.uriTemplate, uri);
      if (variables) return { template, variables };
    }
    return undefined;
  }

  /** The packages' completers of an argument named `argument`, in package order. */
  completers(argument: string): OfferedCompleter[] {
    return this.#packages
      .flatMap((offerings) => offerings.completers ?? [])
      .filter((completer) => completer.argument === argument);
  }

  /** Stops listening to the packages. */
  close(): void {
    for (const stop of this.#stops.splice(0)) {
      try {
        stop();
      } catch {
        // One package failing to stop does not keep the others listening.
      }
    }
  }
}

function firstByKey<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
