// Where an MCP server's OAuth credentials live between runs: one JSON file per server and
// principal, readable by its owner only. Nothing here is ever printed or shown to a model.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { readPrivateJson, writePrivateJson } from '../private-file.js';

/** What is kept for one server and principal. */
export interface OAuthCredentials {
  /** The client as registered (dynamically, by metadata document, or pre-registered). */
  client?: StoredOAuthClientInformation;
  /** The tokens last issued. */
  tokens?: StoredOAuthTokens;
  /** When the access token expires, in ms since the epoch (from `expires_in` when issued). */
  expiresAt?: number;
  /** The PKCE verifier of an authorization in progress. */
  codeVerifier?: string;
  /** The discovery of the authorization in progress (binds the callback to its issuer). */
  discovery?: OAuthDiscoveryState;
  /** The server asked for a sign-in that has not happened yet. */
  needsSignIn?: boolean;
}

/** Storage of one server's credentials for one principal. */
export interface OAuthCredentialStore {
  /** The stored credentials; an empty object when there are none. */
  load(): Promise<OAuthCredentials>;
  /** Replaces the stored credentials. */
  save(credentials: OAuthCredentials): Promise<void>;
  /** Forgets everything stored. */
  clear(): Promise<void>;
}

/** Credentials kept in memory only (for one process, e.g. a test or a one-off command). */
export class MemoryOAuthStore implements OAuthCredentialStore {
  #credentials: OAuthCredentials = {};

  /** {@inheritDoc OAuthCredentialStore.load} */
  async load(): Promise<OAuthCredentials> {
    return structuredClone(this.#credentials);
  }

  /** {@inheritDoc OAuthCredentialStore.save} */
  async save(credentials: OAuthCredentials): Promise<void> {
    this.#credentials = structuredClone(credentials);
  }

  /** {@inheritDoc OAuthCredentialStore.clear} */
  async clear(): Promise<void> {
    this.#credentials = {};
  }
}

/**
 * Credentials in one JSON file, mode 0600 in a 0700 directory, replaced atomically (written
 * beside it, then renamed). A file that cannot be parsed reads as no credentials.
 */
export class FileOAuthStore implements OAuthCredentialStore {
  /** The file. */
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The store of `server`'s credentials for `principal` under `directory`: both names are
   * encoded, so no name can reach outside it.
   */
  static under(directory: string, principal: string, server: string): FileOAuthStore {
    return new FileOAuthStore(
      join(directory, encodeURIComponent(principal), `${encodeURIComponent(server)}.json`),
    );
  }

  /** {@inheritDoc OAuthCredentialStore.load} */
  async load(): Promise<OAuthCredentials> {
    return ((await readPrivateJson(this.path)) ?? {}) as OAuthCredentials;
  }

  /** {@inheritDoc OAuthCredentialStore.save} */
  async save(credentials: OAuthCredentials): Promise<void> {
    await writePrivateJson(this.path, credentials);
  }

  /** {@inheritDoc OAuthCredentialStore.clear} */
  async clear(): Promise<void> {
    await rm(this.path, { force: true });
  }
}
