import { describe, expect, it } from 'vitest';
import {
  containsSecretShape,
  REDACTED,
  SECRET_VALUE_SHAPES,
  scrubSecrets,
  scrubSecretsDeep,
  scrubToolReturn,
} from './secret-scrubber.js';

const SAMPLES: Record<string, { text: string; secret: string }> = {
  'url-credentials': {
    text: 'REDIS_URL=redis://:hunter2pass@cache.internal:6379/0',
    secret: 'hunter2pass',
  },
  'url-credentials-user': { text: 'postgres://app:s3cr3t-pw@db:5432/app', secret: 's3cr3t-pw' },
  stripe: { text: 'key sk_live_51HxAbCdEfGhIjKlMnOp end', secret: 'sk_live_51HxAbCdEfGhIjKlMnOp' },
  'stripe-test': {
    text: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
    secret: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  },
  'stripe-restricted': {
    text: 'rk_live_abcdefghijklmnop1234',
    secret: 'rk_live_abcdefghijklmnop1234',
  },
  openai: {
    text: 'OPENAI=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234',
    secret: 'AbCdEfGhIjKlMnOpQrStUvWx1234',
  },
  anthropic: {
    text: 'x sk-ant-api03-AbCdEfGhIjKlMnOpQrSt-uvwx_yz',
    secret: 'AbCdEfGhIjKlMnOpQrSt',
  },
  ghp: {
    text: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    secret: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  },
  gho: {
    text: 'gho_abcdefghijklmnopqrstuvwxyz0123456789',
    secret: 'gho_abcdefghijklmnopqrstuvwxyz0123456789',
  },
  'github-pat': {
    text: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv',
    secret: 'github_pat_11ABCDEFG',
  },
  slack: { text: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKl', secret: 'xoxb-123456789012' },
  'slack-webhook': {
    text: 'post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX now',
    secret: 'T000/B000/XXXXXXXXXXXXXXXX',
  },
  'discord-webhook': {
    text: 'https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz',
    secret: 'AbCdEfGhIjKlMnOpQrStUvWxYz',
  },
  sendgrid: {
    text: 'SENDGRID=SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq',
    secret: 'SG.abcdefghijklmnopqrstuv',
  },
  aws: { text: 'AKIAIOSFODNN7EXAMPLE', secret: 'AKIAIOSFODNN7EXAMPLE' },
  jwt: {
    text: 'Cookie: session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF_123-xyz',
    secret: 'eyJzdWIiOiIxMjM0In0',
  },
  password: {
    text: 'Server=db;Database=app;User Id=sa;Password=Tr0ub4dor&3;Encrypt=true',
    secret: 'Tr0ub4dor&3',
  },
  'password-quoted': {
    text: 'password = "correct horse battery"',
    secret: 'correct horse battery',
  },
  pwd: { text: 'Driver={SQL};Uid=sa;Pwd=P@ssw0rd99;', secret: 'P@ssw0rd99' },
  pem: {
    text: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAabc+/def==\nZZZZ\n-----END RSA PRIVATE KEY-----',
    secret: 'MIIEowIBAAKCAQEAabc',
  },
  google: {
    text: 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
    secret: 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  },
  bearer: {
    text: 'Authorization: Bearer abcdefghijklmnop.qrstuvwxyz',
    secret: 'abcdefghijklmnop.qrstuvwxyz',
  },
  'azure-account-key': {
    text: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net',
    secret: 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==',
  },
  'azure-shared-access-key': {
    text: 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=c2VjcmV0c2VjcmV0c2VjcmV0MTIz=',
    secret: 'c2VjcmV0c2VjcmV0c2VjcmV0MTIz',
  },
  npm: {
    text: '//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
    secret: 'npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  },
  huggingface: {
    text: 'HF=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567',
    secret: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567',
  },
  gitlab: {
    text: 'CI_TOKEN glpat-AbCdEfGhIjKlMnOpQrSt',
    secret: 'glpat-AbCdEfGhIjKlMnOpQrSt',
  },
  'pem-in-json': {
    text: '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0\\nAAAA\\n-----END PRIVATE KEY-----\\n"}',
    secret: 'MIIEvQIBADANBgkqhkiG9w0',
  },
  'pem-base64': {
    text: 'tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJn',
    secret: 'CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJn',
  },
  reversed: {
    text: 'out: 9876543210zyxwvutsrqponmlkjihgfedcba_phg end',
    secret: '9876543210zyxwvutsrqponmlkjihgfedcba_phg',
  },
  folded: {
    text: 'token:\nghp_abcdefgh\nijklmnopqrst\nuvwxyz012345\n6789\ndone',
    secret: 'ijklmnopqrst',
  },
};

describe('scrubSecrets', () => {
  for (const [name, { text, secret }] of Object.entries(SAMPLES)) {
    it(`removes a ${name} value`, () => {
      const scrubbed = scrubSecrets(text);
      expect(scrubbed).not.toContain(secret);
      expect(scrubbed).toContain(REDACTED);
      expect(containsSecretShape(text)).toBe(true);
    });
  }

  it('keeps the scheme, host and field names readable', () => {
    expect(scrubSecrets('redis://:pw12@cache:6379')).toBe('redis://[redacted]@cache:6379');
    expect(scrubSecrets('Uid=sa;Password=abc;X=1')).toBe('Uid=sa;Password=[redacted];X=1');
  });

  it('replaces only the lines a folded credential spans', () => {
    const folded = 'header line\nghp_abcdefgh\nijklmnopqrst\nuvwxyz012345\n6789\nnext';
    expect(scrubSecrets(folded)).toBe(
      `header line\n${REDACTED}\n${REDACTED}\n${REDACTED}\n${REDACTED}\nnext`,
    );
  });

  it('keeps the text around a reversed credential', () => {
    expect(scrubSecrets('a 2106AbCdEfGhIjKlMnOpQrStUvWxYz_mpn b')).toBe(`a ${REDACTED} b`);
  });

  it('keeps the field name of an Azure key readable', () => {
    expect(scrubSecrets('AccountName=a;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;X=1')).toBe(
      `AccountName=a;AccountKey=${REDACTED};X=1`,
    );
  });

  it('leaves ordinary text alone', () => {
    const ordinary = [
      'The quick brown fox jumps over the lazy dog.',
      'Enter your password to continue; the password field is required.',
      'See https://example.com/docs/page?id=12 and mailto:someone@example.com',
      'PWD=/home/user/project',
      'user@example.com wrote: skip the sk- prefix; ask the AKIA team',
      'git@github.com:owner/repo.git',
      'const ghp = 1; SG.x; eyJ alone; AIza short',
      'scikit-learn and sk-learn are fine',
      'ssh://github.com/owner/repo and http://host:8080/path',
      '-----BEGIN CERTIFICATE-----',
      'ghp_short gho_123',
      'a table\n| name  | value |\n| alpha | 1     |\n| beta  | 2     |',
      'npm_config_cache=/home/user/.npm and hf_hub_download(repo)',
      'drowssap=hunter2 reversed words stay',
      'abcd\nefgh\nijkl\nmnop\n',
    ];
    for (const text of ordinary) expect(scrubSecrets(text), text).toBe(text);
  });

  it('replaces known values, longest first, and ignores values shorter than 4 characters', () => {
    expect(scrubSecrets('a value abc and secret-value', ['abc', 'secret-value', 'value'])).toBe(
      'a [redacted] abc and [redacted]',
    );
  });

  it('runs in linear time on adversarial text', () => {
    for (const piece of [
      'sk-',
      'a://:',
      'eyJa.',
      'password=',
      'SG.',
      '-----BEGIN PRIVATE KEY-----',
    ]) {
      const text = piece.repeat(200_000 / piece.length);
      const started = performance.now();
      scrubSecrets(text);
      expect(performance.now() - started, piece).toBeLessThan(2_000);
    }
  });

  it('has no nested quantifiers in its shapes', () => {
    for (const { name, pattern } of SECRET_VALUE_SHAPES) {
      expect(/\([^()]*[+*}][^()]*\)[+*{]/.test(pattern), name).toBe(false);
    }
  });

  it('scrubs every string of a structured value', () => {
    expect(scrubSecretsDeep({ a: ['AKIAIOSFODNN7EXAMPLE', 1], b: { c: 'ok' } })).toEqual({
      a: [REDACTED, 1],
      b: { c: 'ok' },
    });
  });
});

describe('scrubToolReturn', () => {
  it('scrubs text, data, error fields and artifact descriptions, and keeps artifact paths', () => {
    const key = 'sk_live_51HxAbCdEfGhIjKlMnOp';
    expect(scrubToolReturn(`a ${key}`)).toBe(`a ${REDACTED}`);
    const ok = scrubToolReturn(
      {
        ok: true,
        content: `x ${key} mine-1234`,
        data: { nested: [key] },
        artifacts: [{ path: `out/${key}.txt`, description: key } as never],
      },
      ['mine-1234'],
    );
    expect(JSON.stringify(ok)).not.toContain('mine-1234');
    expect(ok).toMatchObject({
      content: `x ${REDACTED} ${REDACTED}`,
      data: { nested: [REDACTED] },
    });
    expect((ok as unknown as { artifacts: { path: string }[] }).artifacts[0]?.path).toBe(
      `out/${key}.txt`,
    );
    const failed = scrubToolReturn({
      ok: false,
      error: {
        code: 'EXECUTION_FAILED',
        message: key,
        hint: key,
        retryable: false,
        details: { k: key },
      },
    } as never);
    expect(JSON.stringify(failed)).not.toContain(key);
  });
});
