// The part of oidc-provider's API these tests use (it ships no type declarations).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface ProviderClient {
    readonly clientId: string;
  }

  interface AccessTokenInit {
    accountId: string;
    client: ProviderClient | undefined;
    scope: string;
    resourceServer: Record<string, unknown>;
    expiresIn?: number;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly Client: { find(id: string): Promise<ProviderClient | undefined> };
    readonly AccessToken: (new (
      init: AccessTokenInit,
    ) => { save(): Promise<string> }) & {
      find(token: string): Promise<{ destroy(): Promise<void> } | undefined>;
    };
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
