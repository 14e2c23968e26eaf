"""Who may do what, and how often: roles, CSRF and security headers, the session, the pace
of a device's changes and of its wrong codes."""
