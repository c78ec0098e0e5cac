module presence.dev/guard

go 1.19
