from gamemarket.cli import main

raise SystemExit(main())
