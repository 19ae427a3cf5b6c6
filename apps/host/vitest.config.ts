import shared from '../../vitest.shared.js';

// OpenTelemetry's "module" builds use extensionless ESM imports that Node cannot load: resolve
// third-party packages as Node does (without the shared "module" condition).
const conditions = ['@toolsys/source', 'node', 'import', 'default'];

export default {
  ...shared,
  resolve: { ...shared.resolve, conditions },
  ssr: { ...shared.ssr, resolve: { ...shared.ssr?.resolve, conditions } },
};
