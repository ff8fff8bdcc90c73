package dev.distlock.autoconfigure.actuate;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A whole Boot application, as users have: every auto-configuration on the test classpath, actuator and web included.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration",
		"org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoRepositoriesAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveRepositoriesAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisRepositoriesAutoConfiguration" })
class WebTestApplication {

}
