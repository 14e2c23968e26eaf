"""Who may do what, and how often: roles, CSRF and security headers, the session, who is
asking (a device or its network), the pace of changes and the tries anyone may make."""
