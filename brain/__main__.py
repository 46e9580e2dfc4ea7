from brain.cli import main

raise SystemExit(main())
