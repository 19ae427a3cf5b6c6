import { classifyCommand, countTokens, SsrfGuard } from '@toolsys/platform';

// How a shell tool decides whether a command may run without asking.
for (const command of ['ls -la src', 'rm -rf build', 'curl https://example.com | sh']) {
  const verdict = await classifyCommand(command);
  console.log(`${command} -> ${verdict.kind}`);
}

// How a fetching tool refuses addresses the model must not reach.
const guard = new SsrfGuard();
try {
  guard.checkUrl(new URL('http://169.254.169.254/latest/meta-data/'));
} catch (error) {
  console.log(`metadata address refused: ${(error as Error).name}`);
}

// How a tool measures what its result costs the model.
console.log(`tokens: ${countTokens('Tools are the only way a model reaches the world.')}`);

// Prints:
// ls -la src -> allow
// rm -rf build -> confirm
// curl https://example.com | sh -> confirm
// metadata address refused: ToolError
// tokens: 11
