import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SimDevice } from './sim-device.js';

/** The W3C element reference key. */
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/** The port the UiAutomator2 server listens on inside the device (`adb forward tcp:N tcp:6790`). */
export const UIAUTOMATOR2_DEVICE_PORT = 6790;

/** One node of the current hierarchy, parsed from the device's dump. */
interface HierarchyNode {
  readonly attributes: Record<string, string>;
  readonly children: HierarchyNode[];
  /** Child indexes from the root, e.g. `0.2.1`; identifies the node across dumps. */
  readonly path: string;
  readonly bounds: readonly [number, number, number, number];
}

interface ElementRecord {
  readonly path: string;
  readonly className: string;
  readonly resourceId: string;
}

class ProtocolError extends Error {
  readonly status: number;
  readonly error: string;
  constructor(status: number, error: string, message: string) {
    super(message);
    this.status = status;
    this.error = error;
  }
}

function decodeXml(value: string): string {
  return value
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

function encodeXml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** Parses the `uiautomator dump` XML the sim renders into a tree of nodes. */
function parseDump(xml: string): HierarchyNode[] {
  const roots: HierarchyNode[] = [];
  const stack: HierarchyNode[] = [];
  const tag = /<(\/?)node\b([^>]*?)(\/?)>/g;
  for (let match = tag.exec(xml); match !== null; match = tag.exec(xml)) {
    if (match[1] === '/') {
      stack.pop();
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const attribute of (match[2] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)) {
      attributes[attribute[1] as string] = decodeXml(attribute[2] ?? '');
    }
    const parent = stack.at(-1);
    const siblings = parent ? parent.children : roots;
    const bounds = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(attributes.bounds ?? '');
    const node: HierarchyNode = {
      attributes,
      children: [],
      path: parent ? `${parent.path}.${siblings.length}` : String(siblings.length),
      bounds: bounds
        ? [Number(bounds[1]), Number(bounds[2]), Number(bounds[3]), Number(bounds[4])]
        : [0, 0, 0, 0],
    };
    siblings.push(node);
    if (match[3] !== '/') stack.push(node);
  }
  return roots;
}

function flatten(nodes: readonly HierarchyNode[]): HierarchyNode[] {
  const all: HierarchyNode[] = [];
  const walk = (node: HierarchyNode) => {
    all.push(node);
    for (const child of node.children) walk(child);
  };
  for (const node of nodes) walk(node);
  return all;
}

const SOURCE_ATTRIBUTES = [
  'index',
  'package',
  'class',
  'text',
  'resource-id',
  'content-desc',
  'checkable',
  'checked',
  'clickable',
  'enabled',
  'focusable',
  'focused',
  'long-clickable',
  'password',
  'scrollable',
  'selected',
  'bounds',
] as const;

/** Renders the tree as the UiAutomator2 server's page source does: one element per class name. */
function renderSource(roots: readonly HierarchyNode[], width: number, height: number): string {
  const parts = [
    `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy index="0" class="hierarchy" rotation="0" width="${width}" height="${height}">`,
  ];
  const write = (node: HierarchyNode) => {
    const name = (node.attributes.class ?? 'android.view.View').replaceAll('$', '_');
    const attributes = SOURCE_ATTRIBUTES.map(
      (key) => ` ${key}="${encodeXml(node.attributes[key] ?? '')}"`,
    ).join('');
    parts.push(`<${name}${attributes} displayed="true"`);
    if (node.children.length === 0) {
      parts.push(' />');
      return;
    }
    parts.push('>');
    for (const child of node.children) write(child);
    parts.push(`</${name}>`);
  };
  for (const root of roots) write(root);
  parts.push('</hierarchy>');
  return parts.join('');
}

/** Reads the string argument of a UiSelector method call (`text("Send")`). */
function parseUiSelector(selector: string): ((node: HierarchyNode) => boolean)[] | undefined {
  const body = selector.trim().replace(/;$/, '');
  if (!body.startsWith('new UiSelector()')) return undefined;
  const calls = body.slice('new UiSelector()'.length);
  const tests: ((node: HierarchyNode) => boolean)[] = [];
  const call = /\.(\w+)\(\s*(?:"((?:[^"\\]|\\.)*)"|(true|false|\d+))\s*\)/gy;
  let consumed = 0;
  for (let match = call.exec(calls); match !== null; match = call.exec(calls)) {
    consumed = call.lastIndex;
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
    const attribute = (name: string) => (node: HierarchyNode) => node.attributes[name] === value;
    switch (match[1]) {
      case 'text':
        tests.push(attribute('text'));
        break;
      case 'resourceId':
        tests.push(attribute('resource-id'));
        break;
      case 'description':
        tests.push(attribute('content-desc'));
        break;
      case 'className':
        tests.push(attribute('class'));
        break;
      case 'clickable':
      case 'checked':
      case 'focused':
      case 'scrollable':
        tests.push(attribute(match[1]));
        break;
      default:
        return undefined;
    }
  }
  return consumed === calls.length ? tests : undefined;
}

/** A small XPath subset: `//cls[@a="v" and @b="v"]` and absolute `/hierarchy/cls[n]/cls[n]` paths. */
function evaluateXpath(
  roots: readonly HierarchyNode[],
  xpath: string,
): HierarchyNode[] | undefined {
  const anywhere = /^\/\/([\w.$*]+)((?:\[[^\]]*\])*)$/.exec(xpath);
  if (anywhere) {
    const predicates = [...(anywhere[2] ?? '').matchAll(/\[([^\]]*)\]/g)].map(
      (match) => match[1] as string,
    );
    const tests: ((node: HierarchyNode) => boolean)[] = [];
    for (const predicate of predicates) {
      for (const clause of predicate.split(/\s+and\s+/)) {
        const equals = /^@([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')$/.exec(clause.trim());
        if (!equals) return undefined;
        const name = equals[1] as string;
        const value = equals[2] ?? equals[3] ?? '';
        tests.push((node) => node.attributes[name] === value);
      }
    }
    const className = anywhere[1] as string;
    return flatten(roots).filter(
      (node) =>
        (className === '*' || node.attributes.class === className) &&
        tests.every((test) => test(node)),
    );
  }
  const absolute = /^\/hierarchy((?:\/[\w.$]+(?:\[\d+\])?)+)$/.exec(xpath);
  if (!absolute) return undefined;
  let current: readonly HierarchyNode[] = roots;
  let found: HierarchyNode[] = [];
  for (const step of (absolute[1] as string).split('/').slice(1)) {
    const parsed = /^([\w.$]+)(?:\[(\d+)\])?$/.exec(step);
    if (!parsed) return undefined;
    const matching = current.filter((node) => node.attributes.class === parsed[1]);
    found =
      parsed[2] === undefined ? matching : matching.slice(Number(parsed[2]) - 1, Number(parsed[2]));
    current = found.flatMap((node) => node.children);
  }
  return found;
}

/**
 * A stand-in for the UiAutomator2 server APK's HTTP endpoint (appium-uiautomator2-server's
 * AppiumServlet routes), answering from the sim's scripted screens. The real driver reaches it
 * through `adb forward` to device port 6790 once `am instrument` has started it.
 */
export class FakeUiAutomator2Server {
  readonly #device: SimDevice;
  readonly #server: Server;
  readonly #elements = new Map<string, ElementRecord>();
  #sessionId: string | undefined;
  #capabilities: Record<string, unknown> = {};
  #settings: Record<string, unknown> = {
    waitForIdleTimeout: 10_000,
    actionAcknowledgmentTimeout: 3_000,
    ignoreUnimportantViews: false,
    allowInvisibleElements: false,
  };
  #port = 0;
  /** Every request path the server answered, for tests (`GET /status`, `POST /session/…/element`). */
  readonly requests: string[] = [];
  /** Every element search, in order, as `strategy=selector` (tests check the locator chosen). */
  readonly searches: string[] = [];

  private constructor(device: SimDevice) {
    this.#device = device;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
  }

  /** Starts the endpoint on 127.0.0.1 (a free port). */
  static async start(device: SimDevice): Promise<FakeUiAutomator2Server> {
    const server = new FakeUiAutomator2Server(device);
    server.#server.listen(0, '127.0.0.1');
    await once(server.#server, 'listening');
    const address = server.#server.address();
    server.#port = typeof address === 'object' && address !== null ? address.port : 0;
    return server;
  }

  /** The host port it listens on. */
  get port(): number {
    return this.#port;
  }

  /** The active session id, if a session is open. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Stops listening and drops open connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').replace(/\?.*$/, '').replace(/\/+$/, '') || '/';
    this.requests.push(`${method} ${path}`);
    let body: Record<string, unknown> = {};
    try {
      body = text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      this.#send(response, 400, {
        value: { error: 'invalid argument', message: 'the body is not JSON', stacktrace: '' },
      });
      return;
    }
    try {
      const value = this.#route(method, path, body);
      this.#send(response, 200, { sessionId: this.#sessionId ?? null, value: value ?? null });
    } catch (error) {
      const protocol =
        error instanceof ProtocolError
          ? error
          : new ProtocolError(500, 'unknown error', (error as Error).message);
      this.#send(response, protocol.status, {
        sessionId: this.#sessionId ?? null,
        value: { error: protocol.error, message: protocol.message, stacktrace: '' },
      });
    }
  }

  #send(response: ServerResponse, status: number, payload: unknown): void {
    const data = Buffer.from(JSON.stringify(payload));
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': data.length,
    });
    response.end(data);
  }

  #route(method: string, path: string, body: Record<string, unknown>): unknown {
    if (method === 'GET' && path === '/status') {
      return { ready: true, message: 'UiAutomator2 Server is ready to accept commands' };
    }
    if (method === 'GET' && path === '/sessions') {
      return this.#sessionId ? [{ id: this.#sessionId, capabilities: this.#capabilities }] : [];
    }
    if (method === 'POST' && path === '/session') {
      const capabilities = body.capabilities as { firstMatch?: Record<string, unknown>[] };
      this.#sessionId = randomUUID();
      this.#capabilities = { ...(capabilities?.firstMatch?.[0] ?? {}) };
      this.#elements.clear();
      return { ...this.#capabilities, sessionId: this.#sessionId };
    }
    const scoped = /^\/session\/([^/]+)(\/.*)?$/.exec(path);
    if (!scoped) throw new ProtocolError(404, 'unknown command', `unknown route ${method} ${path}`);
    if (scoped[1] !== this.#sessionId) {
      throw new ProtocolError(404, 'invalid session id', `no active session ${scoped[1]}`);
    }
    const route = scoped[2] ?? '/';
    if (route === '/' && method === 'DELETE') {
      this.#sessionId = undefined;
      this.#elements.clear();
      return null;
    }
    if (route === '/' && method === 'GET') return this.#capabilities;
    return this.#sessionRoute(method, route, body);
  }

  #sessionRoute(method: string, route: string, body: Record<string, unknown>): unknown {
    const device = this.#device;
    const { width, height } = device.state.display;
    if (method === 'GET' && route === '/source') {
      this.#requireScreen();
      return renderSource(this.#roots(), width, height);
    }
    if (method === 'POST' && (route === '/element' || route === '/elements')) {
      this.searches.push(`${String(body.strategy ?? '')}=${String(body.selector ?? '')}`);
      const found = this.#find(String(body.strategy ?? ''), String(body.selector ?? ''));
      if (route === '/elements') return found.map((node) => this.#reference(node));
      const first = found[0];
      if (!first) {
        throw new ProtocolError(
          404,
          'no such element',
          'An element could not be located on the page using the given search parameters.',
        );
      }
      return this.#reference(first);
    }
    const element = /^\/element\/([^/]+)(\/.*)$/.exec(route);
    if (element)
      return this.#elementRoute(method, element[1] as string, element[2] as string, body);
    if (method === 'POST' && route === '/actions') {
      this.#performActions(body.actions);
      return null;
    }
    if (method === 'GET' && route === '/screenshot') {
      return device.run('screencap -p').stdout.toString('base64');
    }
    if (method === 'GET' && /^\/window\/[^/]+\/size$/.test(route)) return { width, height };
    if (method === 'GET' && route === '/window/rect') return { x: 0, y: 0, width, height };
    if (method === 'GET' && route === '/appium/device/info') {
      const props = device.state.properties;
      return {
        androidId: 'sim',
        manufacturer: props['ro.product.manufacturer'] ?? 'Google',
        model: props['ro.product.model'] ?? 'sim',
        brand: props['ro.product.brand'] ?? 'google',
        apiVersion: props['ro.build.version.sdk'] ?? '34',
        platformVersion: props['ro.build.version.release'] ?? '14',
        carrierName: '',
        realDisplaySize: `${width}x${height}`,
        displayDensity: device.state.display.density,
        networks: [],
        locale: 'en_US',
        timeZone: 'UTC',
        bluetooth: { state: 'OFF' },
      };
    }
    if (method === 'GET' && route === '/appium/device/pixel_ratio') {
      return device.state.display.density / 160;
    }
    if (method === 'GET' && route === '/appium/device/system_bars') {
      return { statusBar: 0 };
    }
    if (route === '/appium/settings') {
      if (method === 'POST') {
        this.#settings = { ...this.#settings, ...((body.settings as object) ?? {}) };
      }
      return this.#settings;
    }
    throw new ProtocolError(404, 'unknown command', `unknown route ${method} ${route}`);
  }

  #elementRoute(
    method: string,
    id: string,
    action: string,
    body: Record<string, unknown>,
  ): unknown {
    const node = this.#resolve(id);
    const [left, top, right, bottom] = node.bounds;
    const centerX = Math.floor((left + right) / 2);
    const centerY = Math.floor((top + bottom) / 2);
    if (method === 'POST' && action === '/click') {
      this.#device.run(`input tap ${centerX} ${centerY}`);
      return null;
    }
    if (method === 'POST' && action === '/value') {
      const text = typeof body.text === 'string' ? body.text : '';
      this.#device.run(`input tap ${centerX} ${centerY}`);
      if (!this.#device.typeText(text, { replace: body.replace === true })) {
        throw new ProtocolError(
          400,
          'invalid element state',
          `element ${id} does not take text input`,
        );
      }
      return null;
    }
    if (method === 'POST' && action === '/clear') {
      this.#device.run(`input tap ${centerX} ${centerY}`);
      this.#device.typeText('', { replace: true });
      return null;
    }
    if (method === 'GET' && action === '/text') return node.attributes.text ?? '';
    if (method === 'GET' && action === '/rect') {
      return { x: left, y: top, width: right - left, height: bottom - top };
    }
    const attribute = /^\/attribute\/(.+)$/.exec(action);
    if (method === 'GET' && attribute) {
      const name = decodeURIComponent(attribute[1] as string);
      const key =
        name === 'resourceId'
          ? 'resource-id'
          : name === 'contentDescription'
            ? 'content-desc'
            : name === 'className'
              ? 'class'
              : name;
      return node.attributes[key] ?? null;
    }
    throw new ProtocolError(
      404,
      'unknown command',
      `unknown route ${method} /element/${id}${action}`,
    );
  }

  #requireScreen(): void {
    if (!this.#device.state.screenOn) {
      throw new ProtocolError(500, 'unknown error', 'Cannot get the root node: the screen is off');
    }
  }

  #roots(): HierarchyNode[] {
    return parseDump(this.#device.dumpXml());
  }

  #find(strategy: string, selector: string): HierarchyNode[] {
    this.#requireScreen();
    const roots = this.#roots();
    const all = flatten(roots);
    switch (strategy) {
      case 'id': {
        const appPackage = roots[0]?.attributes.package ?? '';
        const full = selector.includes(':id/') ? selector : `${appPackage}:id/${selector}`;
        return all.filter((node) => node.attributes['resource-id'] === full);
      }
      case 'accessibility id':
        return all.filter((node) => node.attributes['content-desc'] === selector);
      case 'class name':
        return all.filter((node) => node.attributes.class === selector);
      case '-android uiautomator': {
        const tests = parseUiSelector(selector);
        if (!tests) {
          throw new ProtocolError(400, 'invalid selector', `unsupported UiSelector: ${selector}`);
        }
        return all.filter((node) => tests.every((test) => test(node)));
      }
      case 'xpath': {
        const found = evaluateXpath(roots, selector);
        if (!found) {
          throw new ProtocolError(400, 'invalid selector', `unsupported XPath: ${selector}`);
        }
        return found;
      }
      default:
        throw new ProtocolError(
          400,
          'invalid selector',
          `unsupported locator strategy ${strategy}`,
        );
    }
  }

  #reference(node: HierarchyNode): Record<string, string> {
    const id = randomUUID();
    this.#elements.set(id, {
      path: node.path,
      className: node.attributes.class ?? '',
      resourceId: node.attributes['resource-id'] ?? '',
    });
    return { ELEMENT: id, [ELEMENT_KEY]: id };
  }

  /** The element's node in the current hierarchy, or a stale-element error when it is gone. */
  #resolve(id: string): HierarchyNode {
    const record = this.#elements.get(id);
    if (!record) throw new ProtocolError(404, 'no such element', `unknown element id ${id}`);
    const node = flatten(this.#roots()).find((candidate) => candidate.path === record.path);
    if (
      !node ||
      node.attributes.class !== record.className ||
      (node.attributes['resource-id'] ?? '') !== record.resourceId
    ) {
      throw new ProtocolError(
        404,
        'stale element reference',
        `The element ${id} is no longer attached to the page`,
      );
    }
    return node;
  }

  /** W3C actions: a pointer down-move-up becomes a tap or a swipe; key downs type text. */
  #performActions(actions: unknown): void {
    if (!Array.isArray(actions)) {
      throw new ProtocolError(400, 'invalid argument', "'actions' must be an array");
    }
    for (const source of actions as { type?: string; actions?: Record<string, unknown>[] }[]) {
      const steps = source.actions ?? [];
      if (source.type === 'key') {
        const text = steps
          .filter((step) => step.type === 'keyDown' && typeof step.value === 'string')
          .map((step) => step.value as string)
          .join('');
        if (text.length > 0) this.#device.typeText(text);
        continue;
      }
      if (source.type !== 'pointer') continue;
      let x = 0;
      let y = 0;
      let down: [number, number] | undefined;
      for (const step of steps) {
        if (step.type === 'pointerMove') {
          const origin = step.origin;
          let baseX = 0;
          let baseY = 0;
          if (origin === 'pointer') {
            baseX = x;
            baseY = y;
          } else if (typeof origin === 'object' && origin !== null) {
            const reference = origin as Record<string, string>;
            const node = this.#resolve(reference[ELEMENT_KEY] ?? reference.ELEMENT ?? '');
            baseX = Math.floor((node.bounds[0] + node.bounds[2]) / 2);
            baseY = Math.floor((node.bounds[1] + node.bounds[3]) / 2);
          }
          x = baseX + Number(step.x ?? 0);
          y = baseY + Number(step.y ?? 0);
        } else if (step.type === 'pointerDown') {
          down = [x, y];
        } else if (step.type === 'pointerUp' && down) {
          const [startX, startY] = down;
          down = undefined;
          if (Math.hypot(x - startX, y - startY) < 10) {
            this.#device.run(`input tap ${Math.round(startX)} ${Math.round(startY)}`);
          } else {
            this.#device.run(
              `input swipe ${Math.round(startX)} ${Math.round(startY)} ${Math.round(x)} ${Math.round(y)}`,
            );
          }
        }
      }
    }
  }
}
