import { z } from 'zod';

/** The `server.auth.introspection` section of `toolsys.config.json`. */
export const introspectionConfigSchema = z
  .object({
    endpoint: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        "The RFC 7662 introspection endpoint. Default: the issuer metadata's introspection_endpoint. http: only on loopback.",
      ),
    clientId: z
      .string()
      .min(1)
      .describe("This server's client id at the authorization server, for client_secret_basic."),
    clientSecretEnv: z
      .string()
      .min(1)
      .describe(
        'Environment variable holding the client secret (read once at start, keeps it out of this file).',
      ),
  })
  .strict()
  .optional()
  .describe(
    'Accept opaque (non-JWT) access tokens by asking the authorization server (RFC 7662); answers are cached for 30 s at most, under a digest of the token.',
  );
