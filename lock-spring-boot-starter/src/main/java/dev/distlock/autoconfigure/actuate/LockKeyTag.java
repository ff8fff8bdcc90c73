package dev.distlock.autoconfigure.actuate;

/**
 * Turns a lock key into the {@code key.prefix} tag of the distlock meters and observations. The value must come from a
 * small, fixed set, or every distinct key becomes its own time series. Declare a bean to replace the default.
 */
@FunctionalInterface
public interface LockKeyTag {

	/**
	 * The tag name on every distlock meter and observation.
	 */
	String TAG = "key.prefix";

	/**
	 * The tag value for a key, given without the template's key prefix.
	 */
	String valueOf(String key);

	/**
	 * The default: the part of the key before the first {@code ':'}, so {@code orders:42} and {@code orders:43} both
	 * tag as {@code orders}. A key without {@code ':'} is taken as the name of a fixed lock and tags as itself.
	 */
	static LockKeyTag beforeFirstColon() {
		return key -> {
			int colon = key.indexOf(':');
			return colon > 0 ? key.substring(0, colon) : key;
		};
	}

}
