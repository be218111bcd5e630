"""The virtual lab (scripts/vlab): modules by concern, see each one."""
