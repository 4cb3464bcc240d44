"""Store configuration: MessageStoreConfig and the enums it uses (org.apache.rocketmq.store.config)."""
