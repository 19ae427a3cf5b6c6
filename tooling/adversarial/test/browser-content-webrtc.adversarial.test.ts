import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserHarness,
  createBrowserHarness,
  type PageServer,
  servePages,
} from './support/browser.js';

// A hostile page sends UDP with its own bytes through WebRTC (STUN / TURN candidates), which
// does not go through the browser's HTTP proxy and so around the SSRF policy: a real Chromium
// must send nothing to a UDP socket on 127.0.0.1.

let harness: BrowserHarness;
let server: PageServer;
let udp: Socket;
let udpPort = 0;
const received: Buffer[] = [];

/** A page that gathers ICE candidates against STUN and TURN servers at a loopback UDP port. */
function webrtcPage(port: number): string {
  return `<!doctype html><title>Call</title><p id="state">gathering</p><script>
    const pc = new RTCPeerConnection({ iceServers: [
      { urls: 'stun:127.0.0.1:${port}' },
      { urls: 'turn:127.0.0.1:${port}?transport=udp', username: 'ATTACKER-BYTES', credential: 'x' },
    ] });
    pc.createDataChannel('x');
    pc.onicegatheringstatechange = () => { document.getElementById('state').textContent = pc.iceGatheringState; };
    pc.createOffer().then((offer) => pc.setLocalDescription(offer));
  </script>`;
}

beforeAll(async () => {
  udp = createSocket('udp4');
  udp.on('message', (message) => received.push(message));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  udpPort = (udp.address() as AddressInfo).port;
  harness = await createBrowserHarness();
  server = await servePages({ '/call': webrtcPage(udpPort) });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await server?.close();
  udp?.close();
}, 60_000);

describe('WebRTC from a page', () => {
  it('sends no UDP packet to a loopback socket around the proxy', async () => {
    await harness.text('browser_navigate', { url: `${server.origin}/call` });
    // ICE gathering sends its STUN / TURN requests within the first second or two.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(
      received.map((message) => message.length),
      'UDP packets reached 127.0.0.1',
    ).toEqual([]);
  }, 60_000);
});
