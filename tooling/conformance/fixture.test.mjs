// The fixture composed as serve.mjs composes it (the plugin loaded by name from beside the
// config), its prompts, resources, template and completion answered through the deployment's
// offerings exactly as the suite's scenarios expect. Run with `node --test fixture.test.mjs`.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { composeDeployment, loadDeploymentConfig } from '@toolsys/host';
import { PNG_BASE64 } from './fixture/media.mjs';
import { prepareFixtureConfig } from './fixture-config.mjs';

const caller = { principal: { id: 'local', kind: 'local', scopes: [] }, sessionId: 'fixture' };
let base;
let deployment;

before(async () => {
  const prepared = await prepareFixtureConfig();
  base = prepared.base;
  deployment = await composeDeployment(loadDeploymentConfig({ path: prepared.file }));
});

after(async () => {
  await deployment?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

test('the plugin is on and its tools are registered', () => {
  assert.equal(deployment.statuses.get('conformance-fixture')?.enabled, true);
  for (const id of ['test_simple_text', 'test_sampling', 'test_trigger_prompt_change']) {
    assert.ok(deployment.registry.has(id), id);
  }
});

test('lists the four prompts of the scenarios', async () => {
  const names = (await deployment.offerings.listPrompts(caller)).map((prompt) => prompt.name);
  assert.deepEqual(names, [
    'test_simple_prompt',
    'test_prompt_with_arguments',
    'test_prompt_with_embedded_resource',
    'test_prompt_with_image',
    'test_input_required_result_prompt',
  ]);
});

test('renders each prompt as the scenarios expect', async () => {
  const get = (name, args = {}) => deployment.offerings.getPrompt(name, args, caller);
  assert.deepEqual((await get('test_simple_prompt')).messages, [
    { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
  ]);
  assert.deepEqual(
    (await get('test_prompt_with_arguments', { arg1: 'hello', arg2: 'world' })).messages,
    [
      {
        role: 'user',
        content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" },
      },
    ],
  );
  const embedded = await get('test_prompt_with_embedded_resource', {
    resourceUri: 'test://example-resource',
  });
  assert.deepEqual(embedded.messages[0].content, {
    type: 'resource',
    resource: {
      uri: 'test://example-resource',
      mimeType: 'text/plain',
      text: 'Embedded resource content for testing.',
    },
  });
  const image = await get('test_prompt_with_image');
  assert.deepEqual(image.messages[0].content, {
    type: 'image',
    data: PNG_BASE64,
    mimeType: 'image/png',
  });
});

test('a prompt that asks renders with the answer of the caller, and refuses without one', async () => {
  const requests = [];
  const asking = {
    ...caller,
    requestInput: async (request) => {
      requests.push([request.key, request.method]);
      return { action: 'accept', content: { context: 'tests' } };
    },
  };
  const result = await deployment.offerings.getPrompt(
    'test_input_required_result_prompt',
    {},
    asking,
  );
  assert.deepEqual(result.messages, [
    { role: 'user', content: { type: 'text', text: 'Use this context: tests.' } },
  ]);
  assert.deepEqual(requests, [['user_context', 'elicitation/create']]);
  await assert.rejects(
    deployment.offerings.getPrompt('test_input_required_result_prompt', {}, caller),
    { name: 'OfferingError', code: 'invalid_params' },
  );
});

test('refuses a missing argument as invalid_params', async () => {
  await assert.rejects(
    deployment.offerings.getPrompt('test_prompt_with_arguments', { arg1: 'x' }, caller),
    { name: 'OfferingError', code: 'invalid_params' },
  );
});

test('reads the static resources and the template; a missing one reads as undefined', async () => {
  const read = (uri) => deployment.offerings.readResource(uri, caller);
  assert.deepEqual(await read('test://static-text'), [
    {
      uri: 'test://static-text',
      mimeType: 'text/plain',
      text: 'This is the content of the static text resource.',
    },
  ]);
  assert.deepEqual(await read('test://static-binary'), [
    { uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_BASE64 },
  ]);
  assert.deepEqual(await read('test://template/123/data'), [
    {
      uri: 'test://template/123/data',
      mimeType: 'application/json',
      text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
    },
  ]);
  assert.equal(await read('test://nonexistent-resource-for-conformance-testing'), undefined);
  const templates = await deployment.offerings.listResourceTemplates(caller);
  assert.deepEqual(
    templates.map((template) => template.uriTemplate),
    ['test://template/{id}/data', 'toolsys://data/{+path}'],
  );
});

test('completes the prompt argument and the template variable', async () => {
  const prompt = await deployment.offerings.complete(
    { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    { name: 'arg1', value: 'par' },
    {},
    caller,
  );
  assert.deepEqual(prompt, { values: ['paris', 'park', 'party'], total: 3, hasMore: false });
  const template = await deployment.offerings.complete(
    { type: 'ref/resource', uri: 'test://template/{id}/data' },
    { name: 'id', value: '12' },
    {},
    caller,
  );
  assert.deepEqual(template.values, ['123']);
});

test('a subscription to the watched resource is accepted and ends', async () => {
  const stop = await deployment.offerings.subscribe('test://watched-resource', caller, () => {});
  stop();
});

test('test_trigger_prompt_change changes the prompt list and says so', async () => {
  const kinds = [];
  const stop = deployment.offerings.onListChanged((kind) => kinds.push(kind));
  const result = await deployment.executor.execute('test_trigger_prompt_change', {}, {});
  stop();
  assert.equal(result.ok, true);
  assert.deepEqual(kinds, ['prompts']);
  const names = (await deployment.offerings.listPrompts(caller)).map((prompt) => prompt.name);
  assert.ok(names.includes('test_dynamic_prompt'));
});

test('a tool that asks refuses cleanly when the caller cannot answer', async () => {
  const result = await deployment.executor.execute('test_sampling', { prompt: 'hi' }, {});
  assert.equal(result.ok, false);
  assert.equal(result.error.code, 'PERMISSION_DENIED');
});

test('a tool that asks names each request by the key the scenario expects', async () => {
  // The tool itself, run with a context whose client answers: the executor passes
  // requestInput on once the server gives one.
  const tool = deployment.registry.get('test_input_required_result_multiple_inputs');
  const requests = [];
  const answers = {
    'elicitation/create': { action: 'accept', content: { name: 'Alice' } },
    'sampling/createMessage': { role: 'assistant', content: { type: 'text', text: 'Hi' } },
    'roots/list': { roots: [{ uri: 'file:///project' }] },
  };
  const result = await tool.execute(
    {},
    {
      requestInput: async (request) => {
        requests.push([request.key, request.method]);
        return answers[request.method];
      },
    },
  );
  assert.equal(result.content, 'Hi Alice (1 roots)');
  assert.deepEqual(requests, [
    ['user_name', 'elicitation/create'],
    ['greeting', 'sampling/createMessage'],
    ['client_roots', 'roots/list'],
  ]);
});
