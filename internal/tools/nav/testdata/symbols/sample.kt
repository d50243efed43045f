package sample

data class User(val name: String, val age: Int)

fun String.shout(): String {
    return this.uppercase() + "!"
}

suspend fun load(id: Int): User =
    User("x", id)

object Registry {
    val users = mutableListOf<User>()
}

val DEFAULT_USER = User("root", 0)
