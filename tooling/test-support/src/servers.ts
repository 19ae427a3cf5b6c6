// Starting a test server on loopback.
import type { Server } from 'node:net';

/**
 * Starts `server` (a `node:net` or `node:http` server) listening on 127.0.0.1 on a port the system
 * picks, and returns that port once it listens. Close the server when done.
 */
export function listenOnLoopback(server: Server): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('the server has no TCP address'));
        return;
      }
      resolve(address.port);
    });
  });
}
