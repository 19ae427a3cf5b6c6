#!/usr/bin/env node
// The client command the official MCP conformance suite spawns:
//
//   node tooling/conformance/client.mjs <serverUrl>
//
// with the scenario in MCP_CONFORMANCE_SCENARIO (and, for some scenarios, what to call in
// MCP_CONFORMANCE_CONTEXT). It is written as a user of @toolsys/mcp-client would write one: an
// McpClient per server, the protocol era negotiated by itself, the SDK client (`sdkClient`) only
// for what McpClient does not wrap (resources, prompts). It exits 0 when the scenario's steps
// ran, 1 with the error on stderr otherwise; the suite judges what went over the wire.
import { McpClient, McpOAuthProvider, MemoryOAuthStore } from '@toolsys/mcp-client';

const TIMEOUT_MS = 20_000;

/** What each client scenario does, by name. */
const SCENARIOS = {
  /** Connects and lists the tools. */
  initialize: async (client) => {
    await client.listTools({ timeoutMs: TIMEOUT_MS });
  },
  /** Connects, lists the tools and calls add_numbers. */
  tools_call: async (client) => {
    const tools = await client.listTools({ timeoutMs: TIMEOUT_MS });
    if (tools.some((tool) => tool.name === 'add_numbers')) {
      await client.callTool('add_numbers', { a: 5, b: 3 }, { timeoutMs: TIMEOUT_MS });
    }
  },
  /** Only the connection: every request of it carries the version and the `_meta` envelope. */
  'request-metadata': async () => {},
  /** One request of each kind, so that each one's Mcp-Method / Mcp-Name headers are seen. */
  'http-standard-headers': async (client) => {
    const tools = await client.listTools({ timeoutMs: TIMEOUT_MS });
    if (tools[0]) await client.callTool(tools[0].name, {}, { timeoutMs: TIMEOUT_MS });
    const sdk = client.sdkClient;
    if (!sdk) return;
    const { resources } = await sdk.listResources();
    if (resources[0]) await sdk.readResource({ uri: resources[0].uri });
    const { prompts } = await sdk.listPrompts();
    if (prompts[0]) await sdk.getPrompt({ name: prompts[0].name, arguments: {} });
  },
  /** The calls the suite names, after a listing (which gives the tools' header declarations). */
  'http-custom-headers': async (client) => {
    await client.listTools({ timeoutMs: TIMEOUT_MS });
    for (const call of context().toolCalls ?? []) {
      await client.callTool(call.name, call.arguments ?? {}, { timeoutMs: TIMEOUT_MS });
    }
  },
  /** Calls every tool the listing kept: those with invalid header declarations are left out. */
  'http-invalid-tool-headers': async (client) => {
    const tools = await client.listTools({ timeoutMs: TIMEOUT_MS });
    for (const tool of tools) {
      await client
        .callTool(tool.name, { region: 'us-west1' }, { timeoutMs: TIMEOUT_MS })
        .catch((error) => console.error(`call ${tool.name} failed: ${error.message}`));
    }
  },
  /** Lists the tools: their schemas reach the caller as the server wrote them ($ref kept). */
  'json-schema-ref-no-deref': async (client) => {
    await client.listTools({ timeoutMs: TIMEOUT_MS });
  },
  /** Sends the listed schema of one tool back to the server, which checks nothing was lost. */
  'json-schema-2020-12-preservation': async (client) => {
    const tools = await client.listTools({ timeoutMs: TIMEOUT_MS });
    const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    if (!focal) throw new Error('the server lists no json_schema_2020_12_tool');
    await client.callTool(
      'json_schema_echo',
      { schema: focal.inputSchema },
      { timeoutMs: TIMEOUT_MS },
    );
  },
  /** Calls the tool that asks for a form, answered with nothing: the form's defaults fill it. */
  'elicitation-sep1034-client-defaults': async (client) => {
    await client.listTools({ timeoutMs: TIMEOUT_MS });
    await client.callTool('test_client_elicitation_defaults', {}, { timeoutMs: TIMEOUT_MS });
  },
  /** Multi-round-trip calls: the requestState echoed exactly, nothing carried to other calls. */
  'sep-2322-client-request-state': async (client) => {
    await client.listTools({ timeoutMs: TIMEOUT_MS });
    for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated']) {
      await client.callTool(name, {}, { timeoutMs: TIMEOUT_MS });
    }
    // A result without resultType is refused by the client, and not retried.
    await client
      .callTool('test_mrtr_no_result_type', {}, { timeoutMs: TIMEOUT_MS })
      .catch((error) => console.error(`test_mrtr_no_result_type refused: ${error.message}`));
  },
  /** Calls the tool that makes the server drop its SSE stream, so the client must reconnect. */
  'sse-retry': async (client) => {
    const tools = await client.listTools({ timeoutMs: TIMEOUT_MS });
    const tool = tools.find((candidate) => candidate.name === 'test_reconnection') ?? tools[0];
    if (tool) await client.callTool(tool.name, {}, { timeoutMs: TIMEOUT_MS });
  },
};

/** Every `auth/*` scenario: sign in as the server asks, list the tools and call the first one. */
async function authScenario(client) {
  const tools = await client.listTools({ timeoutMs: TIMEOUT_MS });
  if (tools[0]) await client.callTool(tools[0].name, {}, { timeoutMs: TIMEOUT_MS });
}

/** This client's metadata document, as the suite's authorization server knows it. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * The browser step without a browser: the suite's authorization server answers the
 * authorization request at once with a redirect to the callback, whose query is the answer.
 */
async function headlessAuthorization(authorizationUrl, redirectUrl) {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  await response.body?.cancel();
  if (!location) throw new Error(`the authorization request was answered ${response.status}`);
  const callback = new URL(location, authorizationUrl);
  if (!callback.href.startsWith(redirectUrl))
    throw new Error('redirected elsewhere than the callback');
  return callback.searchParams;
}

/** The OAuth client of a scenario: pre-registered when the suite gives credentials. */
function oauthFor(url) {
  const { client_id: clientId, client_secret: clientSecret } = context();
  return new McpOAuthProvider({
    server: 'conformance',
    serverUrl: url,
    store: new MemoryOAuthStore(),
    redirectUrl: 'http://127.0.0.1:8090/callback',
    authorize: headlessAuthorization,
    settings: {
      clientMetadataUrl: CLIENT_METADATA_URL,
      ...(clientId === undefined ? {} : { clientId }),
      ...(clientSecret === undefined ? {} : { clientSecret }),
    },
  });
}

/** The forms each scenario answers (accepted; what is left out gets the form's defaults). */
const FORM_ANSWERS = {
  'elicitation-sep1034-client-defaults': {},
  'sep-2322-client-request-state': { confirmed: true },
};

/** The suite's context for this scenario (MCP_CONFORMANCE_CONTEXT), or an empty one. */
function context() {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return raw ? JSON.parse(raw) : {};
}

async function main() {
  const [url] = process.argv.slice(2);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (!url || !scenario) {
    console.error('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node client.mjs <serverUrl>');
    return 2;
  }
  const auth = scenario.startsWith('auth/');
  const run = auth ? authScenario : SCENARIOS[scenario];
  if (!run) {
    console.error(`scenario "${scenario}" is not supported by this client`);
    return 1;
  }
  const answer = FORM_ANSWERS[scenario];
  const client = new McpClient(
    { name: 'conformance', transport: 'streamable-http', url },
    {
      clientInfo: { name: 'toolsys-conformance', version: '1.0.0' },
      ...(auth ? { oauth: () => oauthFor(url) } : {}),
      ...(answer === undefined
        ? {}
        : { onElicitation: async () => ({ action: 'accept', content: { ...answer } }) }),
    },
  );
  try {
    await client.connect({ timeoutMs: TIMEOUT_MS });
    console.error(`connected: MCP ${client.protocolVersion} (${client.era})`);
    await run(client);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    return 1;
  } finally {
    await client.close();
  }
}

process.exitCode = await main();
