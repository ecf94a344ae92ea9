"""The append-only audit log: who did what, when and from where. At the bottom beside
`core`; every app may write to it, it imports no app."""
