/// A value bound to a statement's parameter.
package enum SQLiteValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    case null
}
