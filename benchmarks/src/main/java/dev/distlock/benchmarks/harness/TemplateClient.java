package dev.distlock.benchmarks.harness;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;

/**
 * The client of the distlock arms: a {@link LockTemplate} on the arm's provider, acquiring with the arm's options
 * (its own waiting) and releasing through the {@link LockHandle}.
 */
public final class TemplateClient implements LockClient {

	private final LockTemplate template;

	private final LockOptions options;

	private final Runnable closing;

	/**
	 * A client with a template of its own on the provider.
	 * @param closing closes the provider and what it runs on, after the template
	 */
	public TemplateClient(LockProvider provider, LockOptions options, Runnable closing) {
		this.template = LockTemplate.builder(provider).defaults(options).build();
		this.options = options;
		this.closing = closing;
	}

	@Override
	public Object lock(String key) {
		return template.acquire(key, options);
	}

	@Override
	public void unlock(Object held) {
		((LockHandle) held).release();
	}

	@Override
	public void close() {
		template.close();
		closing.run();
	}

}
