import { createToolExecutor, renderResult, ToolRegistry } from '@toolsys/core-tool-registry';
import { createUtilityTools } from '@toolsys/core-tools';

const registry = new ToolRegistry();
registry.registerAll(createUtilityTools(), { owner: 'my-agent' });
const executor = createToolExecutor({ registry });

const result = await executor.execute('calculate', { expression: '2+3*4' });
console.log(renderResult(result));

// `execute` never throws: a bad argument comes back as a result the model can act on.
const failure = await executor.execute('calculate', { expression: 5 });
console.log(renderResult(failure));

// Prints:
// 14
// Error: [INVALID_ARGUMENT] expression: expected string, received number
// Next: Fix the arguments and retry.
