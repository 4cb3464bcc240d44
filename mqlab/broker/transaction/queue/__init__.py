"""The 4.9.3 implementation of transactional messages over two system topics (half and op queues)."""
