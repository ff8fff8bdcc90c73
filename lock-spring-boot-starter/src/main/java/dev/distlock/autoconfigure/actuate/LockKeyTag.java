package dev.distlock.autoconfigure.actuate;

/**
 * Turns a lock key into the {@code key.prefix} tag of the distlock meters and observations. The value must come from a
 * small, fixed set, or every distinct key becomes its own time series. Declare a bean to replace the default.
 *
 * <p>Only keys given to {@code LockTemplate} directly are asked: a lock taken through {@code @DistributedLock} is
 * tagged with its method ({@code method=OrderService.reserve}) and {@code key.prefix=none}, since its key is often
 * built from arguments.
 */
@FunctionalInterface
public interface LockKeyTag {

	/**
	 * The tag name on every distlock meter and observation.
	 */
	String TAG = "key.prefix";

	/**
	 * The value of the {@code key.prefix} and {@code method} tags when they do not apply.
	 */
	String NONE = "none";

	/**
	 * The tag value for a key, given without the template's key prefix.
	 */
	String valueOf(String key);

	/**
	 * The default: the part of the key before the first {@code ':'}, so {@code orders:42} and {@code orders:43} both
	 * tag as {@code orders}. A key without a {@code ':'} after its first character tags as {@link #NONE}: it may be an
	 * argument, such as an id, and the key itself must never become a tag.
	 */
	static LockKeyTag beforeFirstColon() {
		return key -> {
			int colon = key.indexOf(':');
			return colon > 0 ? key.substring(0, colon) : NONE;
		};
	}

}
