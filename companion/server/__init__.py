"""The process that serves the table: binding the port, the addresses phones are shown,
waitress with its event loop, and the limits that keep one device from stalling the others."""
