"""Who may do what, and how often: roles, CSRF and security headers, the session, who is
asking (a device or its network), the pace of changes, the tries anyone may make, and the
share of the server's time a device not playing a game may take."""
