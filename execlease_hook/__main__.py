from execlease_hook.cli import main

raise SystemExit(main())
