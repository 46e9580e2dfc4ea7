// The Neo4j schema of brain: created by the store on start (idempotent).
// Generated from brain/store/neo4j_cypher.py: python -m brain.store.neo4j_cypher
CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (n:Memory) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_id IF NOT EXISTS FOR (n:Agent) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT workflow_id IF NOT EXISTS FOR (n:Workflow) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT chat_id IF NOT EXISTS FOR (n:Chat) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT work_item_id IF NOT EXISTS FOR (n:WorkItem) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT unresolved_id IF NOT EXISTS FOR (n:Unresolved) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT daily_note_id IF NOT EXISTS FOR (n:DailyNote) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT skill_id IF NOT EXISTS FOR (n:Skill) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT tool_id IF NOT EXISTS FOR (n:Tool) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT file_id IF NOT EXISTS FOR (n:File) REQUIRE n.id IS UNIQUE;
CREATE INDEX memory_key IF NOT EXISTS FOR (n:Memory) ON (n.key);
CREATE INDEX memory_path IF NOT EXISTS FOR (n:Memory) ON (n.path);
CREATE INDEX memory_scope IF NOT EXISTS FOR (n:Memory) ON (n.scope);
CREATE INDEX memory_type IF NOT EXISTS FOR (n:Memory) ON (n.type);
CREATE INDEX memory_order IF NOT EXISTS FOR (n:Memory) ON (n.orderKey);
CREATE INDEX agent_key IF NOT EXISTS FOR (n:Agent) ON (n.key);
CREATE INDEX workflow_key IF NOT EXISTS FOR (n:Workflow) ON (n.key);
CREATE INDEX chat_key IF NOT EXISTS FOR (n:Chat) ON (n.key);
CREATE INDEX work_item_key IF NOT EXISTS FOR (n:WorkItem) ON (n.key);
CREATE INDEX file_key IF NOT EXISTS FOR (n:File) ON (n.key);
CREATE INDEX links_to_key IF NOT EXISTS FOR ()-[n:LINKS_TO]-() ON (n.key);
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Memory) ON EACH [n.title, n.description, n.body] OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (n:Memory) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE CONSTRAINT brain_workspace_key IF NOT EXISTS FOR (n:BrainWorkspace) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT brain_change_batch IF NOT EXISTS FOR (n:BrainChange) REQUIRE n.batch IS UNIQUE;
CREATE INDEX brain_change_seq IF NOT EXISTS FOR (n:BrainChange) ON (n.seq);
