"""The distributed runtime: cluster specs, resolvers, servers (master and worker), the tensor
transport and remote sessions."""
