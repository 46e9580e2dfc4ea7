"""Configuration, split by who may decide it (design.md §12): the workspace's `brain.toml`
(`workspace`: the layout and rules that only narrow; data, since anyone who can write the
workspace can write it) and the operator's settings (`operator`: `--config FILE` /
`BRAIN_CONFIG`, the environment and flags: endpoints, keys, schedules, budgets). `messages`
says a file's problems the same way for both."""
