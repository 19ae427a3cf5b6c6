// mathjs for calculate and unit_convert, loaded on first use from its single-file build.
import { lazyModule } from '@toolsys/platform';
import type { ConfigOptions, MathJsInstance } from 'mathjs';

/**
 * What the tools use of the mathjs build: its full default instance, whose `create` makes another
 * full instance with its own configuration (the factories are bound to it, so it takes only the
 * configuration).
 */
interface MathJsBuild {
  create(config?: ConfigOptions): MathJsInstance;
}

/**
 * mathjs, required on the first call. The package entry loads about 1,500 modules (some 650 ms
 * cold); the single-file build of the same version loads in under 100 ms, so the first
 * `calculate` or `unit_convert` costs about as much as the evaluation.
 */
export const loadMathjs = lazyModule<MathJsBuild>('mathjs/lib/browser/math.js', import.meta.url);
