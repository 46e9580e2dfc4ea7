// The whole-workspace summary's query (graphql/graph-clusters.graphql), apart from clusters.ts
// so the first screen can ask for it (main.ts prefetches it) without loading the graph's code.
import CLUSTERS_DOCUMENT from '../../../graphql/graph-clusters.graphql';

export const CLUSTERS = CLUSTERS_DOCUMENT;

/** The query and variables of the summary (the first screen prefetches the same). */
export const clustersQuery = (asOf: string | null): [string, Record<string, unknown>] => [CLUSTERS, { asOf }];
