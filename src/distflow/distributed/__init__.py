"""The distributed runtime: cluster specs, resolvers, and (next) servers and remote sessions."""
