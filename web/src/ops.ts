// The UI's GraphQL operations (public API only). Kept in one place so they are easy to audit.
import MEMORY_HEALTH_DOCUMENT from '../../graphql/memory-health.graphql';

export const PROBLEM_FIELDS = 'code severity path message line column length fix target';

/** A page of scopes: `after` is the last scope of the page before (memory.ts reads them all). */
export const SCOPES_PAGE = 100;
export const MEMORY_SCOPES = `query MemoryScopes($after: String) { memoryScopes(first: ${SCOPES_PAGE}, after: $after) { scope agent memoryOff defined description fileCount } }`;

const FILE_INFO = 'scope file name path type description size modifiedAt age';

export const MEMORY_SCOPE = `query MemoryScope($scope: String!) { memoryScope(scope: $scope) {
  files { ${FILE_INFO} } } }`;

/** A scope's heading and the rows its first screen shows: one small answer, then the rest. */
export const MEMORY_SCOPE_FIRST = `query MemoryScopeFirst($scope: String!, $first: Int!) { memoryScope(scope: $scope) {
  scope agent memoryOff defined description fileCount files(first: $first) { ${FILE_INFO} } } }`;

/** Rows of a scope's table asked for and drawn first; the rest follow. */
export const FIRST_ROWS = 60;
export const firstPage = (scope: string): [string, Record<string, unknown>] => [MEMORY_SCOPE_FIRST, { scope, first: FIRST_ROWS }];

export const MEMORY_SCOPE_REST = `query MemoryScopeRest($scope: String!, $after: String!) { memoryScope(scope: $scope) {
  files(after: $after) { ${FILE_INFO} } } }`;

export const MEMORY_FILE = `query MemoryFile($scope: String!, $file: String!) { memoryFile(scope: $scope, file: $file) {
  text hash info { scope file name path type description size modifiedAt age }
  problems { ${PROBLEM_FIELDS} } } }`;

const WRITE_RESULT = 'ok path hash previousHash refusal { code message text }';

export const MEMORY_WRITE = `mutation MemoryWrite($scope: String!, $file: String!, $content: String!, $expectedHash: String) {
  memoryWrite(scope: $scope, file: $file, content: $content, expectedHash: $expectedHash) { ${WRITE_RESULT} } }`;

export const MEMORY_REMOVE = `mutation MemoryRemove($scope: String!, $file: String!, $expectedHash: String) {
  memoryRemove(scope: $scope, file: $file, expectedHash: $expectedHash) { ${WRITE_RESULT} } }`;

export const MEMORY_MOVE = `mutation MemoryMove($scope: String!, $file: String!, $newScope: String!, $newFile: String!, $expectedHash: String) {
  memoryMove(scope: $scope, file: $file, newScope: $newScope, newFile: $newFile, expectedHash: $expectedHash) { ${WRITE_RESULT} } }`;

export const MEMORY_HISTORY = `query MemoryHistory($path: String!) { memoryHistory(path: $path, first: 50) {
  records { id at actor via command scope path before after newPath beforeText afterText } } }`;

export const MEMORY_PROMPT = `query MemoryPrompt($agent: String!) { memoryPrompt(agent: $agent) }`;

export const ENTITIES = `query Entities { workflows { name title } chats { name title } workItems { name title } }`;

export const LINK_REPORT = `query LinkReport { linkReport { total errors warnings byStatus { status count } byCode { code severity count }
  mostWanted(first: 5) { count target { target } } } }`;

/** Memory health: the document dashboards use (graphql/memory-health.graphql), as it is. */
export const MEMORY_HEALTH = MEMORY_HEALTH_DOCUMENT;

export const PROBLEMS = `query Problems($after: String) { problems(first: 100, after: $after) {
  totalCount pageInfo { hasNextPage endCursor } nodes { ${PROBLEM_FIELDS} } } }`;

export const OVERVIEW = `query Overview($edgeBudget: Int) { graphOverview(edgeBudget: $edgeBudget) { truncated edgeTotal columns } }`;
/**
 * Links an overview asks for by default (its `edgeBudget`): past this many, the drawing is a
 * hairball that costs seconds. The server keeps every problem link and the best-connected
 * links (brain/service/overview.py) and sends each node's degree over all of them.
 */
export const OVERVIEW_EDGE_BUDGET = 100_000;
/** The overview's query and variables: the backbone, or every link. (The first screen prefetches the same.) */
export const overview = (allLinks: boolean): [string, Record<string, unknown>] =>
  [OVERVIEW, { edgeBudget: allLinks ? null : OVERVIEW_EDGE_BUDGET }];

const SUBGRAPH = `truncated
  nodes { __typename id
    ... on Memory { name scope type problems { code } }
    ... on Agent { name memoryOff }
    ... on Entity { name }
    ... on Unresolved { target } }
  edges { type source target link { status } }`;

export const NEIGHBORHOOD = `query Neighborhood($id: ID!, $depth: Int!) { neighborhood(id: $id, depth: $depth, limit: 500) {
  ${SUBGRAPH} } }`;

const LINK = 'text line column status targetId source { id path } target { __typename ... on Node { id } }';

export const NODE_DETAILS = `query NodeDetails($id: ID!) { node(id: $id) { __typename id
  ... on Memory { name scope path description type size age links { ${LINK} } linkCount backlinks { ${LINK} } backlinkCount problems { ${PROBLEM_FIELDS} } }
  ... on Agent { name description memoryEnabled memoryOff agentPath: path backlinks { ${LINK} } backlinkCount }
  ... on Entity { name title entityPath: path backlinks { ${LINK} } backlinkCount }
  ... on Unresolved { target wantedBy { ${LINK} } wantedByCount } } }`;


export const NOTE_NEARBY = `query NoteNearby($path: String!) { memory(path: $path) {
  unlinkedMentions(first: 50) { line column text targetId candidates replacement oldStr newStr }
  related(first: 10) { score terms memory { path scope name } } } }`;

export const SEARCH = `query Search($query: String!, $first: Int!) { search(query: $query, first: $first) {
  mode notice nodes { id path scope name snippet matched terms } } }`;

export const FIND_NAME = `query FindName($text: String!) { memories(filter: { text: $text }, first: 20) { nodes { id name scope description } } }`;

/** What changed between two moments (the JSON of `brain diff --format json`, time/types.ts). */
export const CHANGES = `query Changes($since: String!, $until: String, $agent: String) { changes(since: $since, until: $until, agent: $agent) }`;

/** One note as it was at a moment (GraphQL `asOf`): its text, description and links then. */
export const NOTE_AS_OF = `query NoteAsOf($path: String!, $asOf: DateTime!) { memory(path: $path, asOf: $asOf) {
  path scope name description type hash body
  linkCount links(first: 100) { text line column status targetId target { __typename ... on Memory { path } } }
  problemCount problems(first: 100) { ${PROBLEM_FIELDS} } } }`;

/** The note now, to say what changed since a moment. */
export const NOTE_NOW = `query NoteNow($path: String!) { memory(path: $path) { hash body description type } }`;

/** The graph as it was at a moment (GraphQL `asOf`): the overview's and a neighbourhood's. */
export const OVERVIEW_AS_OF = `query OverviewAsOf($edgeBudget: Int, $asOf: DateTime!) { graphOverview(edgeBudget: $edgeBudget, asOf: $asOf) { truncated edgeTotal columns } }`;
export const NEIGHBORHOOD_AS_OF = `query NeighborhoodAsOf($id: ID!, $depth: Int!, $asOf: DateTime!) { neighborhood(id: $id, depth: $depth, limit: 500, asOf: $asOf) {
  ${SUBGRAPH} } }`;

/** The workspace's newest recorded changes: the graph's time slider stops before each. */
export const TIME_STEPS = 100;  // a page of memoryHistory holds at most 100
/** A page of the history for the slider, newest first; `nextBefore` pages to older ones. */
export const RECENT_CHANGES = `query RecentChanges($before: ID) { memoryHistory(first: ${TIME_STEPS}, before: $before) { records { at actor command path } nextBefore } }`;

/** The history's first record (ids are byte offsets: the first is 0, the only one before 1). */
export const HISTORY_START = `query HistoryStart { memoryHistory(first: 1, before: "1") { records { at } } }`;
