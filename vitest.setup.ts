// pnpm's launchers put its hoisted store on NODE_PATH. A process a test starts (the CLI, a
// server, a worker) must resolve dependencies as a user's would, from the package that declares
// them, so that a missing dependency fails here and not on a user's machine.
delete process.env.NODE_PATH;
