from execlease_hook.cli.main import main

raise SystemExit(main())
