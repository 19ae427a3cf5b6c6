import { isReplicaName, REPLICA_NAME_PATTERN } from '@toolsys/core-tool-registry';
import { ConfigError, type ResolvedDeploymentConfig } from './config.js';

/** The environment variable naming this replica; it wins over `server.replicaName`. */
export const REPLICA_NAME_ENV = 'TOOLSYS_REPLICA_NAME';

/**
 * This replica's name: `TOOLSYS_REPLICA_NAME` when set (replicas usually share one config file),
 * else `server.replicaName`, else none. A name that cannot stand in a handle is a
 * {@link ConfigError} naming the variable.
 */
export function replicaNameOf(config: ResolvedDeploymentConfig): string | undefined {
  const fromEnv = (config.env ?? process.env)[REPLICA_NAME_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isReplicaName(fromEnv)) {
      throw new ConfigError(
        `${REPLICA_NAME_ENV} ${JSON.stringify(fromEnv.slice(0, 40))} is not a replica name: use letters, digits, _ and - (${REPLICA_NAME_PATTERN.source}), e.g. replica1.`,
      );
    }
    return fromEnv;
  }
  return config.config.server?.replicaName;
}
