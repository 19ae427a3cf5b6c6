import {
  createToolExecutor,
  defineTool,
  RiskAwareToolGate,
  RunPolicies,
  renderResult,
  successResult,
  ToolHints,
  ToolPermissionManager,
  ToolRateLimiter,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { createOpenAITools } from '@toolsys/core-tool-registry/adapters/openai';
import { z } from 'zod';

// Your own tool: the schema is both the validator and the JSON Schema a model sees.
const addTool = defineTool({
  id: 'shop.add_to_cart',
  description: 'Adds an item to the cart. Returns the new cart size.',
  inputSchema: ToolSchema.object({
    sku: z.string().min(1).describe('The item to add.'),
    quantity: z.number().int().min(1).max(10).default(1).describe('How many (1-10).'),
  }),
  metadata: { category: 'utility', risk: 'MEDIUM', annotations: ToolHints.mutating },
  runPolicy: { ...RunPolicies.quickRead, ratePerMinute: 2 },
  execute: ({ sku, quantity }) => successResult(`Added ${quantity} × ${sku}.`),
});

const registry = new ToolRegistry();
registry.register(addTool, { owner: 'my-agent' });

// The hardened pipeline: a risk gate (MEDIUM risk is allowed here), validation, a rate limiter
// that enforces the tool's own policy, timeouts and retries.
const executor = createToolExecutor({
  registry,
  gate: new RiskAwareToolGate(new ToolPermissionManager({ policy: { MEDIUM: 'allow' } })),
  rateLimiter: new ToolRateLimiter(),
  runPolicies: {},
});

// The same registry as OpenAI tool definitions; each call runs through the executor.
const toolset = createOpenAITools(executor);
console.log(toolset.tools.map((tool) => tool.function.name).join(', '));

for (const [id, args] of [
  ['call_1', '{"sku": "tea"}'],
  ['call_2', '{"sku": "", "quantity": 2}'],
  ['call_3', '{"sku": "mug", "quantity": 2}'],
  ['call_4', '{"sku": "cup"}'],
] as const) {
  const { message } = await toolset.run({
    id,
    type: 'function',
    function: { name: 'shop_add_to_cart', arguments: args },
  });
  console.log(message.content.split('\n')[0]);
}

// `execute` never throws: a failure is a result the model can act on.
console.log(renderResult(await executor.execute('shop.add_to_cart', { sku: 7 })).split('\n')[0]);

// Prints:
// shop_add_to_cart
// Added 1 × tea.
// Error: [INVALID_ARGUMENT] sku: Too small: expected string to have >=1 characters
// Added 2 × mug.
// Error: [RATE_LIMITED] shop.add_to_cart is limited to 2 calls a minute and the quota is used up.
// Error: [INVALID_ARGUMENT] sku: expected string, received number
