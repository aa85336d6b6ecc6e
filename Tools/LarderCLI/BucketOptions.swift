extension BucketPublish {
    /// The options of `publish` that go with an s3:// origin only, each declared once
    /// (``TypedOption``), and their values.
    struct Options: Sendable {
        static let endpoint = TypedOption<String?>(
            OptionSpec(names: ["--endpoint"], value: "url", help: "s3:// origins: the S3 service (default: AWS's for the region), e.g. http://127.0.0.1:9000."))
        static let region = TypedOption<String?>(
            OptionSpec(names: ["--region"], value: "region", help: "s3:// origins: the region requests are signed for (default: AWS_REGION, else us-east-1)."))
        static let virtualHost = OptionSpec(
            names: ["--virtual-host"], value: nil, help: "s3:// origins: address the bucket as <bucket>.<host> (default: <host>/<bucket>).")
        static let acl = TypedOption<String?>(
            OptionSpec(
                names: ["--acl"], value: "acl",
                help: "s3:// origins: a canned ACL for every file, e.g. public-read for a bucket devices read directly (default: none)."))
        static let from = TypedOption<String?>(
            OptionSpec(names: ["--from"], value: "folder", help: "s3:// origins: upload this origin folder (what 'larder publish' wrote) in the safe order."))

        /// In the order of the help.
        static let specs = [endpoint.spec, region.spec, virtualHost, acl.spec, from.spec]

        var endpoint: String?
        var region: String?
        var virtualHost: Bool
        var acl: String?
        /// The origin folder to upload.
        var from: String?

        init(_ parsed: ParsedArguments) throws(UsageError) {
            endpoint = try parsed[Self.endpoint]
            region = try parsed[Self.region]
            virtualHost = parsed.flag(Self.virtualHost.names[0])
            acl = try parsed[Self.acl]
            from = try parsed[Self.from]
        }

        /// The first of these options given, named, for "… goes with an s3:// origin".
        var firstGiven: String? {
            if endpoint != nil { return Self.endpoint.spec.names[0] }
            if region != nil { return Self.region.spec.names[0] }
            if acl != nil { return Self.acl.spec.names[0] }
            if from != nil { return Self.from.spec.names[0] }
            return virtualHost ? Self.virtualHost.names[0] : nil
        }
    }
}
